/** The jobs section's reads and actions, through the API's XML (`GET /jobs`, `POST /job/<id>/retry|cancel`). */
import { type Session, childText, getPage, postXml } from './api.js'
import { JOBS_PAGE_SIZE, type JobState, type JobsQuery, jobsPath } from './jobs-query.js'

export interface JobRow {
  id: string
  kind: string
  state: string
  /** What the job works on: a file's slug, or another subject (a webhook event). */
  subject: string
  /** The file's slug and name, when the subject is a file. */
  file: { slug: string; name: string } | null
  attempts: number
  maxAttempts: number
  progress: number
  lastError: string
}

export interface JobsPage {
  jobs: JobRow[]
  /** Jobs matching the query, all pages. */
  total: number
}

/** A `job` element as a row. */
export function jobOf(element: Element | Document): JobRow {
  const slug = childText(element, 'file')
  return {
    id: childText(element, 'id'),
    kind: childText(element, 'kind'),
    state: childText(element, 'state'),
    subject: childText(element, 'subject'),
    file: slug ? { slug, name: childText(element, 'file_name') || slug } : null,
    attempts: Number(childText(element, 'attempts')),
    maxAttempts: Number(childText(element, 'max_attempts')),
    progress: Number(childText(element, 'progress')),
    lastError: childText(element, 'last_error'),
  }
}

/** One page of the jobs the user sees, newest first. */
export async function loadJobs(session: Session, query: JobsQuery): Promise<JobsPage> {
  const start = (query.page - 1) * JOBS_PAGE_SIZE
  const { doc, total } = await getPage(session, jobsPath(query.state), start, JOBS_PAGE_SIZE)
  return { jobs: Array.from(doc.getElementsByTagName('job')).map(jobOf), total }
}

/** How many jobs the user sees in `state` (a one-job page: its total). */
export async function countJobs(session: Session, state: JobState): Promise<number> {
  return (await getPage(session, jobsPath(state), 0, 1)).total
}

/** Retries or cancels a job; answers it as it is then. */
export async function changeJobState(session: Session, id: string, action: 'retry' | 'cancel'): Promise<JobRow> {
  return jobOf(await postXml(session, `/job/${encodeURIComponent(id)}/${action}`))
}
