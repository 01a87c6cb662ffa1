import { type JobRecord, type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { FileView } from '../files/index.js'

/**
 * A job (info, list entries, the answers of retry and cancel): its kind, state, attempt n/m,
 * progress, last error, next try, what it works on (`subject`; `file`, a link, when that is a
 * file), and the `retry` and `cancel` links.
 */
export function jobXml(links: LinkBuilder, job: JobRecord, file: FileView | undefined): XmlNode {
  return xml.el('job', { href: links.url('job', job.id) }, [
    xml.str('id', job.id),
    xml.str('kind', job.type),
    xml.str('state', job.state),
    xml.str('subject', job.subject),
    file ? xml.str('file', file.slug, { href: links.url('file', file.slug) }) : xml.str('file', null),
    xml.str('file_name', file?.name),
    xml.num('attempts', job.attempts),
    xml.num('max_attempts', job.maxAttempts),
    xml.num('progress', Math.floor(job.progress)),
    xml.str('last_error', job.lastError),
    // A waiting job's next run: later than now while it backs off after a failed or interrupted run.
    xml.date('next_try', job.state === 'waiting' ? job.runAfter : null),
    xml.date('created_at', job.createdAt),
    xml.date('updated_at', job.updatedAt),
    xml.link('retry', links.url('job', job.id, 'retry')),
    xml.link('cancel', links.url('job', job.id, 'cancel')),
  ])
}

/** `GET /jobs`: `jobs` of `job` entries, newest first; `href` carries the filters as asked. */
export function jobListXml(links: LinkBuilder, href: string, jobs: JobRecord[], files: Map<string, FileView>): XmlNode {
  return xml.el(
    'jobs',
    { href },
    jobs.map((job) => jobXml(links, job, job.subject === null ? undefined : files.get(job.subject))),
  )
}
