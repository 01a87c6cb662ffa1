import { reasonOf, unlessRefused } from './api.js'
import { useSignal } from '@preact/signals'
import type { Session } from './api.js'
import { type JobRow, changeJobState, loadJobs } from './jobs-data.js'
import { jobLabel, jobName } from './jobs-labels.js'
import { JOBS_PAGE_SIZE, JOB_STATES, type JobsQuery, jobsHref, mayListJobs, readJobsQuery } from './jobs-query.js'
import { JobsTable } from './jobs-table.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'

type T = (key: MessageKey, values?: Record<string, string | number>) => string

/**
 * The jobs the user administers (`GET /jobs`, docs/api/jobs.md), newest first, a page at a time, filtered by state
 * (kept in the address), with Retry and Cancel and what came of them. Others opening the address are told the
 * section is not for them; the API refuses them anyway (403).
 */
export function Jobs(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t: T = (key, values) => message(language, key, values)
  const query = readJobsQuery(location.search)
  const offered = mayListJobs(session)
  const { current, reload } = useLoad(() => unlessRefused(offered ? loadJobs(session, query) : Promise.resolve(null)))
  const busy = useSignal<string | null>(null)
  const outcome = useSignal<{ text: string; problem: boolean } | null>(null)

  async function act(job: JobRow, action: 'retry' | 'cancel') {
    busy.value = job.id
    const names = { id: job.id, name: jobName(job) }
    try {
      await changeJobState(session, job.id, action)
      outcome.value = { text: t(action === 'retry' ? 'jobs.retried' : 'jobs.cancelled', names), problem: false }
    } catch (error) {
      outcome.value = { text: t('jobs.refused', { ...names, reason: reasonOf(error) }), problem: true }
    }
    busy.value = null
    reload()
  }

  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  if (!current.value) {
    return (
      <p class="notice" role="status">
        {t('jobs.not_for_you')}
      </p>
    )
  }
  const { jobs, total } = current.value
  return (
    <div>
      <p>{t('jobs.intro')}</p>
      <StateFilter t={t} language={language} session={session} query={query} />
      <section class="card" aria-labelledby="jobs-heading">
        <h2 id="jobs-heading">{t('jobs.list')}</h2>
        <p role="status" class={outcome.value?.problem ? 'problem' : 'notice'}>
          {outcome.value?.text ?? ''}
        </p>
        {jobs.length ? (
          <JobsTable base={session.base} language={language} jobs={jobs} busy={busy.value} onAct={act} />
        ) : (
          <p>{t(query.state ? 'jobs.empty.state' : 'jobs.empty')}</p>
        )}
        <Pager t={t} session={session} query={query} total={total} shown={jobs.length} />
      </section>
    </div>
  )
}

/** The state filter: a plain GET form of the address's `state`. */
function StateFilter(props: { t: T; language: Language; session: Session; query: JobsQuery }) {
  const { t, language, session, query } = props
  return (
    <form method="get" action={`${session.base}/console/jobs`} class="card filters" aria-label={t('jobs.filter.title')}>
      <div>
        <label for="jobs-state">{t('jobs.filter.state')}</label>
        <select id="jobs-state" name="state" value={query.state}>
          <option value="">{t('jobs.filter.any')}</option>
          {JOB_STATES.map((state) => (
            <option key={state} value={state}>
              {jobLabel(language, state)}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit">{t('jobs.filter.submit')}</button>
      </div>
    </form>
  )
}

function Pager(props: { t: T; session: Session; query: JobsQuery; total: number; shown: number }) {
  const { t, session, query, total, shown } = props
  if (!total || !shown) return null
  const first = (query.page - 1) * JOBS_PAGE_SIZE + 1
  const pages = Math.ceil(total / JOBS_PAGE_SIZE)
  return (
    <nav aria-label={t('jobs.pages')} class="actions">
      <p>{t('jobs.showing', { first, last: first + shown - 1, total })}</p>
      {query.page > 1 ? (
        <a class="button" href={jobsHref(session.base, { ...query, page: query.page - 1 })}>
          {t('jobs.previous')}
        </a>
      ) : null}
      {query.page < pages ? (
        <a class="button" href={jobsHref(session.base, { ...query, page: query.page + 1 })}>
          {t('jobs.next')}
        </a>
      ) : null}
    </nav>
  )
}
