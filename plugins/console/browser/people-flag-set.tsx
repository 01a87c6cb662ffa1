/**
 * One role's or profile's page: its name, quota (profiles) and flags, changed and deleted by those whose profile may.
 * A profile granting flags the caller lacks is theirs to look at only; a role may still be renamed or lose flags.
 */
import { deleteAt, putXml } from './api.js'
import { useAction } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import {
  type FlagSet,
  type FlagSetKind,
  MEGABYTE,
  flagOn,
  holdsAll,
  holdsFlag,
  permissionFields,
  routeOf,
} from './people-data.js'
import { FlagBoxes, grantedIn } from './people-flag-boxes.js'
import { BackTo, ConfirmButton, Problem, type TabProps } from './people-parts.js'
import { peopleHref } from './people-query.js'

export function FlagSetPage(props: TabProps & { kind: FlagSetKind; set: FlagSet; onSaved: () => void }) {
  const { session, language, kind, set, onSaved } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const action = useAction()
  const tab = kind === 'role' ? 'roles' : 'profiles'
  const granted = new Set(set.granted)
  // A stronger profile is out of reach (the API refuses any change); a role only its added flags count.
  const reachable = kind === 'role' || holdsAll(session, kind, set)
  const edit = session.flags.has(flagOn(kind, 'edit')) && reachable
  const offered = (flag: string) => edit && holdsFlag(session, kind, flag)

  async function save(event: Event) {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const form: Record<string, string> = {
      name: String(data.get('name') || ''),
      ...permissionFields(set.models, grantedIn(data, set.models, granted, offered)),
    }
    if (kind === 'profile') form.quota = String(Math.round(Number(data.get('quota') || 0) * MEGABYTE))
    if (await action.run(() => putXml(session, routeOf(kind, set.slug), form))) onSaved()
  }

  return (
    <div>
      <BackTo session={session} language={language} tab={tab} />
      <section class="card" aria-labelledby="set-heading">
        <h2 id="set-heading">{t(`people.${kind}.title`, { name: set.name })}</h2>
        {!reachable ? <p class="hint">{t('people.profile.stronger')}</p> : null}
        <form onSubmit={save}>
          <Problem language={language} reason={action.problem} />
          <label for="set-name">{t('people.sets.name')}</label>
          <input type="text" id="set-name" name="name" required maxLength={255} value={set.name} readOnly={!edit} />
          {kind === 'profile' ? (
            <>
              <label for="set-quota">{t('people.profile.quota')}</label>
              <input
                type="number"
                id="set-quota"
                name="quota"
                min={0}
                step="any"
                required
                readOnly={!edit}
                value={String((set.quota ?? 0) / MEGABYTE)}
              />
            </>
          ) : null}
          <FlagBoxes idPrefix="set" models={set.models} granted={granted} offered={offered} />
          {edit ? (
            <div class="actions">
              <button type="submit">{t('people.save')}</button>
            </div>
          ) : null}
          <p role="status" class="notice">
            {action.done ? t('people.saved') : ''}
          </p>
        </form>
      </section>
      {session.flags.has(flagOn(kind, 'delete')) && reachable ? (
        <section class="card" aria-labelledby="set-delete-heading">
          <h2 id="set-delete-heading">{t(`people.${kind}.delete`)}</h2>
          <ConfirmButton
            language={language}
            danger
            label={t(`people.${kind}.delete`)}
            question={t('people.sets.delete.confirm', { name: set.name })}
            yes={t('people.sets.delete.yes')}
            onConfirm={async () => {
              await deleteAt(session, routeOf(kind, set.slug))
              location.assign(peopleHref(session.base, { tab }))
            }}
          />
        </section>
      ) : null}
    </div>
  )
}
