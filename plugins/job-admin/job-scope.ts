import {
  type HttpContext,
  INSTANCE_ADMIN_FLAG,
  type JobFilter,
  type JobRecord,
  type Reader,
  forbidden,
  notFound,
} from '../../src/kernel/index.js'
import { type FileView, fileQueries } from '../files/index.js'
import { PLATFORM_KIND } from '../platforms/index.js'
import type { JobAdminDeps } from './job-admin.deps.js'

/** Who administers a platform's jobs: its administrators (installation administrators see every job). */
export const MANAGES = 'platform.edit'

/** The jobs a caller sees: every one (installation administrators), or those of one platform's files. */
export type JobScope = 'all' | { platformId: number }

/** The 403 of a caller who administers no platform. */
const ADMINISTRATORS_ONLY = `This needs the "${MANAGES}" permission: jobs are for administrators.`

/**
 * The caller's scope, or 403: installation administrators see every job, a platform's
 * administrators (`platform.edit` on their own platform) the jobs of its files, nobody else any.
 */
export async function jobScope(c: HttpContext): Promise<JobScope> {
  if (c.principal.flags.has(INSTANCE_ADMIN_FLAG)) return 'all'
  const platformId = c.principal.platformId
  if (await c.authz.can(c.principal, MANAGES, { kind: PLATFORM_KIND, id: platformId })) return { platformId }
  throw forbidden(ADMINISTRATORS_ONLY)
}

/**
 * The files that `subjects` name, by slug (a job's subject is its file's slug; a subject naming
 * no file, a webhook event's, is left out). One lookup each: subjects are bounded by the jobs kept.
 */
export async function filesNamed(reader: Reader, subjects: Iterable<string>): Promise<Map<string, FileView>> {
  const files = new Map<string, FileView>()
  for (const slug of new Set(subjects)) {
    const file = await fileQueries.fileBySlug(reader, slug)
    if (file) files.set(slug, file)
  }
  return files
}

/** `filter` narrowed to the jobs `scope` sees: for a platform, the jobs whose subject is one of its files. */
export async function scopedFilter(c: HttpContext, deps: JobAdminDeps, scope: JobScope, filter: JobFilter) {
  if (scope === 'all') return filter
  const files = await filesNamed(c.reader, await deps.jobs.subjects(filter))
  const subjects = [...files.values()].filter((f) => f.platformId === scope.platformId).map((f) => f.slug)
  return { ...filter, subjects }
}

/**
 * The job named by `:job` with its file, once the caller may act on it: 404 for an unknown number
 * and, exactly alike, for a job the caller cannot see (not of a file of their platform, or they
 * may not view it); 403 when it is their platform's and they do not administer it.
 */
export async function jobFromPath(
  c: HttpContext,
  deps: JobAdminDeps,
): Promise<{ job: JobRecord; file: FileView | undefined }> {
  const raw = c.param('job')
  const missing = notFound(`No job "${raw}".`)
  const job = await deps.jobs.get(raw)
  if (!job) throw missing
  const file = job.subject === null ? undefined : (await filesNamed(c.reader, [job.subject])).get(job.subject)
  if (c.principal.flags.has(INSTANCE_ADMIN_FLAG)) return { job, file }
  if (!file || file.platformId !== c.principal.platformId) throw missing
  const platform = { kind: PLATFORM_KIND, id: file.platformId }
  if (!(await c.authz.can(c.principal, 'platform.view', platform))) throw missing
  if (!(await c.authz.can(c.principal, MANAGES, platform))) throw forbidden(ADMINISTRATORS_ONLY)
  return { job, file }
}
