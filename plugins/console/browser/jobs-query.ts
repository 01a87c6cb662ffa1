/**
 * What the jobs section shows, kept in the address (`/console/jobs?state=failed&page=2`): the dashboard links to a
 * state, a reload and the back button show the same list, and the filter is a plain GET form of these names.
 */

/** The states of a job (the API's `state`), in life order. */
export const JOB_STATES = ['waiting', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]

/** The states a job may be retried from, and cancelled in: the API's rule, so only what it would accept is offered. */
export const RETRYABLE: readonly string[] = ['failed', 'cancelled']
export const CANCELLABLE: readonly string[] = ['waiting', 'running']

/** The profile flags of who may list jobs: a platform's administrators, and the installation's. */
const LISTS_JOBS = ['platform.edit', 'instance.view']

/** Whether the user's profile may list jobs (the API still decides: it answers 403 to anyone else). */
export const mayListJobs = (session: { flags: ReadonlySet<string> }): boolean =>
  LISTS_JOBS.some((flag) => session.flags.has(flag))

/** Jobs per page: a screenful. */
export const JOBS_PAGE_SIZE = 50

export interface JobsQuery {
  /** One state, or '' for every one. */
  state: JobState | ''
  /** From 1. */
  page: number
}

/** The query of an address's search part; anything unknown falls back to the default. */
export function readJobsQuery(search: string): JobsQuery {
  const params = new URLSearchParams(search)
  const state = params.get('state') || ''
  const page = Number(params.get('page'))
  return {
    state: (JOB_STATES as readonly string[]).includes(state) ? (state as JobState) : '',
    page: Number.isSafeInteger(page) && page > 1 ? page : 1,
  }
}

/** The address of the jobs section for `query` (defaults left out). */
export function jobsHref(base: string, query: Partial<JobsQuery>): string {
  const params = new URLSearchParams()
  if (query.state) params.set('state', query.state)
  if (query.page && query.page > 1) params.set('page', String(query.page))
  const text = params.toString()
  return `${base}/console/jobs${text ? `?${text}` : ''}`
}

/** The API path of the list for a state (`/jobs?state=failed`). */
export const jobsPath = (state: JobState | ''): string => (state ? `/jobs?state=${state}` : '/jobs')
