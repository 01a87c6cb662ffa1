import {
  HttpError,
  type HttpContext,
  JOB_STATES,
  type JobRecord,
  type Router,
  UserError,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { filesNamed, jobFromPath, jobScope, scopedFilter } from './job-scope.js'
import { jobListXml, jobXml } from './job.xml.js'
import type { JobAdminDeps } from './job-admin.deps.js'

const WHO_LISTS =
  'installation administrators (every job); platform.edit on the caller’s platform (the jobs of its files); others 403'
const WHO =
  'installation administrators; platform.edit on the platform of the job’s file (404 for a job the caller does not see, 403 for their platform’s without platform.edit)'

/** The filters of `GET /jobs`, by their names in the query string. */
const FILTERS = ['state', 'kind', 'file'] as const

/** `GET /jobs`: the jobs the caller sees, newest first, filtered, one Range page at a time. */
async function listJobs(c: HttpContext, deps: JobAdminDeps) {
  const scope = await jobScope(c)
  const query = c.query()
  const fields = c.fields(query, 'update')
  const state = fields.oneOf('state', JOB_STATES)
  const kind = fields.string('kind', { max: 255 })
  const file = fields.string('file', { max: 255 })
  fields.done()
  const filter = await scopedFilter(c, deps, scope, {
    state: state ?? undefined,
    type: kind ?? undefined,
    subject: file ?? undefined,
  })
  const jobs = await c.list(await deps.jobs.count(filter), (page) =>
    deps.jobs.list({ ...filter, offset: page.offset, limit: page.limit }),
  )
  const files = await filesNamed(
    c.reader,
    jobs.flatMap((job) => job.subject ?? []),
  )
  const asked = new URLSearchParams()
  for (const name of FILTERS) {
    const value = query[name]
    if (typeof value === 'string' && value.trim()) asked.set(name, value.trim())
  }
  const href = `${c.links.url('jobs')}${asked.size ? `?${asked.toString()}` : ''}`
  return reply.xml(200, jobListXml(c.links, href, jobs, files))
}

/**
 * Retries or cancels the job in the path: 412 naming why when its state does not allow it (the
 * kernel's rule, the CLI's too), 404 when it went meanwhile.
 */
async function act(c: HttpContext, deps: JobAdminDeps, action: (id: string) => Promise<JobRecord | null>) {
  const { job, file } = await jobFromPath(c, deps)
  let after: JobRecord | null
  try {
    after = await action(job.id)
  } catch (error) {
    if (error instanceof UserError) throw new HttpError(412, error.message)
    throw error
  }
  if (!after) throw notFound(`No job "${job.id}": it was removed meanwhile.`)
  return reply.xml(200, jobXml(c.links, after, file))
}

/**
 * Background jobs, an extension of the contract (docs/api/jobs.md, decision 0262): what
 * `mediactl jobs list|retry|cancel` do, for the console and other clients of the API.
 */
export function jobRoutes(r: Router, deps: JobAdminDeps): void {
  r.get('/jobs', (c) => listJobs(c, deps), { permission: WHO_LISTS })

  r.get(
    '/job/:job',
    async (c) => {
      const { job, file } = await jobFromPath(c, deps)
      return reply.xml(200, jobXml(c.links, job, file))
    },
    { permission: WHO },
  )

  r.post('/job/:job/retry', (c) => act(c, deps, (id) => deps.jobs.retry(id)), {
    permission: `${WHO}; a failed or cancelled job only (412 otherwise)`,
  })

  r.post('/job/:job/cancel', (c) => act(c, deps, (id) => deps.jobs.cancel(id)), {
    permission: `${WHO}; a waiting or running job only (412 otherwise)`,
  })
}
