import { type Session, getXml, ownPlatformPath, unlessRefused } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, message } from './messages/index.js'
import { PlatformSettingsForm, platformSettingsOf } from './settings-general.js'
import { BEHAVIORS, THEMES } from './settings-preset-kinds.js'
import { PresetsCard } from './settings-presets.js'
import { MANAGES_PLATFORM } from './settings-platform.js'

async function loadPlatform(session: Session) {
  const path = await ownPlatformPath(session)
  return platformSettingsOf(path, await getXml(session, path))
}

/**
 * The settings of the user's platform, for its administrators (`platform.edit`): its own fields (name, quotas,
 * timestamp dialect), then its player themes and behaviors. Others opening the address are told it is not for them;
 * the API refuses their changes anyway.
 */
export function Settings(props: { session: Session; language: Language }) {
  const { session, language } = props
  const offered = session.flags.has(MANAGES_PLATFORM)
  const { current, reload } = useLoad(() => unlessRefused(offered ? loadPlatform(session) : Promise.resolve(null)))
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  if (!current.value) {
    return (
      <p class="notice" role="status">
        {message(language, 'settings.not_for_you')}
      </p>
    )
  }
  const platform = current.value
  return (
    <div>
      <PlatformSettingsForm session={session} language={language} platform={platform} />
      <PresetsCard session={session} language={language} platformPath={platform.path} kind={THEMES} />
      <PresetsCard session={session} language={language} platformPath={platform.path} kind={BEHAVIORS} />
    </div>
  )
}
