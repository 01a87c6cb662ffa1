import { type Session, childText, findOwnPlatformPath, getXml, mediaSlugs, unlessRefused } from './api.js'
import { ApiKeyCard } from './api-key.js'
import { RecentFilesCards } from './dashboard-files.js'
import { JobsCard } from './dashboard-jobs.js'
import { bytes } from './format.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'

interface Platform {
  name: string
  maxUsers: number
  maxSpace: number
  users: number
  space: number
}

interface Overview {
  /** Null when the user may not view their platform (the API answers 403): the card is not offered. */
  platform: Platform | null
  media: string[]
}

function platformOf(doc: Document): Platform {
  const number = (name: string) => Number(childText(doc, name) || 0)
  return {
    name: childText(doc, 'name'),
    maxUsers: number('max_users'),
    maxSpace: number('max_space'),
    users: number('created_users'),
    space: number('used_space'),
  }
}

async function loadOverview(session: Session): Promise<Overview> {
  const path = await findOwnPlatformPath(session)
  const doc = path ? await unlessRefused(getXml(session, path)) : null
  return { platform: doc ? platformOf(doc) : null, media: await mediaSlugs(session) }
}

/**
 * One quota: its heading, how much is used against the limit (`<kind>.used`, or `<kind>.unlimited` when the limit
 * is 0), and a meter when there is a limit.
 */
function Usage(props: {
  language: Language
  kind: 'dashboard.storage' | 'dashboard.users'
  used: number
  max: number
  format: (value: number) => string
}) {
  const { language, kind, used, max, format } = props
  const label = message(language, kind)
  const text =
    max > 0
      ? message(language, `${kind}.used`, { used: format(used), max: format(max) })
      : message(language, `${kind}.unlimited`, { used: format(used) })
  return (
    <div>
      <h3>{label}</h3>
      <p>{text}</p>
      {max > 0 ? <meter aria-label={label} min={0} max={max} value={used} /> : null}
    </div>
  )
}

/** The dashboard: the platform's usage against its quotas, and the media sites the user sees. */
export function Dashboard(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadOverview(session))
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const { platform, media } = current.value
  return (
    <div class="grid">
      {platform ? (
        <section class="card" aria-labelledby="platform-heading">
          <h2 id="platform-heading">{t('dashboard.platform', { name: platform.name })}</h2>
          <Usage
            language={language}
            kind="dashboard.storage"
            used={platform.space}
            max={platform.maxSpace}
            format={(value) => bytes(value, language)}
          />
          <Usage
            language={language}
            kind="dashboard.users"
            used={platform.users}
            max={platform.maxUsers}
            format={String}
          />
        </section>
      ) : null}
      <section class="card" aria-labelledby="media-heading">
        <h2 id="media-heading">{t('dashboard.media')}</h2>
        {media.length === 0 ? (
          <p>{t('dashboard.media.empty')}</p>
        ) : (
          <ul>
            {media.map((slug) => (
              <li key={slug}>{slug}</li>
            ))}
          </ul>
        )}
      </section>
      <RecentFilesCards session={session} language={language} />
      <ApiKeyCard session={session} language={language} />
      <JobsCard session={session} language={language} />
    </div>
  )
}
