import { unlessRefused } from './api.js'
import type { Session } from './api.js'
import { countJobs } from './jobs-data.js'
import { jobsHref, mayListJobs } from './jobs-query.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/** The states the dashboard counts: what needs an administrator's eye. */
const COUNTED = ['waiting', 'running', 'failed'] as const

async function loadCounts(session: Session): Promise<Record<(typeof COUNTED)[number], number>> {
  const [waiting, running, failed] = await Promise.all(COUNTED.map((state) => countJobs(session, state)))
  return { waiting: waiting!, running: running!, failed: failed! }
}

/**
 * The dashboard's jobs card, for those who may list jobs: how many wait, run and failed, each a link to the jobs of
 * that state. Not offered to other profiles, nor when the API refuses the list.
 */
export function JobsCard(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const offered = mayListJobs(session)
  const { current, reload } = useLoad(() => unlessRefused(offered ? loadCounts(session) : Promise.resolve(null)))
  if (!offered) return null
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const counts = current.value
  if (!counts) return null
  return (
    <section class="card" aria-labelledby="jobs-card-heading">
      <h2 id="jobs-card-heading">{t('jobs.dashboard.title')}</h2>
      <ul>
        {COUNTED.map((state) => (
          <li key={state}>
            <a href={jobsHref(session.base, { state })}>{t(`jobs.dashboard.${state}`, { count: counts[state] })}</a>
          </li>
        ))}
      </ul>
      <p>
        <a href={jobsHref(session.base, {})}>{t('jobs.dashboard.all')}</a>
      </p>
    </section>
  )
}
