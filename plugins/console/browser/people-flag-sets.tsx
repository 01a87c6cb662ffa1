/** The roles and the profiles tabs: the platform's roles (or profiles) with their flags, a new one, one opened. */
import { childText, postXml } from './api.js'
import { bytes } from './format.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import {
  type FlagSet,
  type FlagSetKind,
  MEGABYTE,
  flagOn,
  holdsFlag,
  loadFlagSets,
  permissionFields,
  routeOf,
} from './people-data.js'
import { FlagBoxes, grantedIn } from './people-flag-boxes.js'
import { FlagSetPage } from './people-flag-set.js'
import { Problem, type TabProps } from './people-parts.js'
import { peopleHref } from './people-query.js'

export function FlagSets(props: TabProps & { kind: FlagSetKind }) {
  const { session, language, platform, query, kind } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const load = useLoad(() => loadFlagSets(session, platform, kind))
  const tab = kind === 'role' ? 'roles' : 'profiles'
  const current = load.current
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error')
    return <LoadProblem language={language} reason={current.reason} onRetry={load.reload} />
  const opened = current.value.find((set) => set.slug === query.open)
  if (query.open) {
    return opened ? (
      <FlagSetPage {...props} set={opened} onSaved={load.reload} />
    ) : (
      <LoadProblem
        language={language}
        reason={t(`people.${kind}.unknown`, { name: query.open })}
        onRetry={load.reload}
      />
    )
  }
  return (
    <div>
      <section class="card" aria-labelledby="sets-heading">
        <h2 id="sets-heading">{t(`people.${tab}.title`)}</h2>
        {current.value.length === 0 ? <p>{t(`people.${tab}.empty`)}</p> : null}
        {current.value.length > 0 ? (
          <ul>
            {current.value.map((set) => (
              <li key={set.slug}>
                <a href={peopleHref(session.base, { tab, open: set.slug })}>{set.name}</a>{' '}
                <span class="hint">
                  {t('people.sets.count', { count: set.granted.length })}
                  {set.quota ? ` · ${bytes(set.quota, language)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      {session.flags.has(flagOn(kind, 'create')) && current.value[0] ? (
        <NewFlagSet {...props} models={current.value[0]} />
      ) : null}
    </div>
  )
}

/** A new role or profile: a name (a quota for a profile) and the flags the caller holds. */
function NewFlagSet(props: TabProps & { kind: FlagSetKind; models: FlagSet }) {
  const { session, language, platform, kind, models } = props
  const t = (key: MessageKey) => message(language, key)
  const action = useAction()
  const none = new Set<string>()
  const offered = (flag: string) => holdsFlag(session, kind, flag)

  async function create(event: Event) {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const form: Record<string, string> = {
      name: String(data.get('name') || ''),
      ...permissionFields(models.models, grantedIn(data, models.models, none, offered)),
    }
    if (kind === 'profile') form.quota = String(Math.round(Number(data.get('quota') || 0) * MEGABYTE))
    await action.run(async () => {
      const doc = await postXml(session, routeOf('platform', platform, `${kind}s`), form)
      location.assign(peopleHref(session.base, { tab: `${kind}s`, open: childText(doc, 'slug') }))
    })
  }

  return (
    <section class="card" aria-labelledby="new-set-heading">
      <h2 id="new-set-heading">{t(`people.${kind}.new`)}</h2>
      <form onSubmit={create}>
        <Problem language={language} reason={action.problem} />
        <label for="new-set-name">{t('people.sets.name')}</label>
        <input type="text" id="new-set-name" name="name" required maxLength={255} autocomplete="off" />
        {kind === 'profile' ? (
          <>
            <label for="new-set-quota">{t('people.profile.quota')}</label>
            <input type="number" id="new-set-quota" name="quota" min={0} step="any" value="0" required />
          </>
        ) : null}
        <p class="hint">{t('people.sets.only_held')}</p>
        <FlagBoxes idPrefix="new-set" models={models.models} granted={none} offered={offered} />
        <div class="actions">
          <button type="submit">{t(`people.${kind}.create`)}</button>
        </div>
      </form>
    </section>
  )
}
