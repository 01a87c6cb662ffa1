/**
 * One user's page: who they are, and for those who may (user.edit, holding every flag of the user's profile): their
 * details, a sign-in link, a new API key, deletion, and their accesses. A more powerful user is shown read-only.
 */
import { useSignal } from '@preact/signals'
import { childText, deleteAt, getXml, linkedSlug, postXml, putXml, reasonOf } from './api.js'
import { LoadProblem, Loading, NotReady, useAction, useLoad } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import { SubjectAccesses } from './people-accesses.js'
import { type FlagSet, flagSetOf, formFields, holdsAll, routeOf } from './people-data.js'
import { BackTo, ConfirmButton, Problem, type TabProps } from './people-parts.js'
import { CopyField } from './copy.js'
import { peopleHref } from './people-query.js'
import { ProfileSelect, useGivableProfiles } from './people-profiles.js'

interface Person {
  username: string
  firstName: string
  lastName: string
  email: string
  active: boolean
  profileSlug: string
  /** Null when the caller may not read profiles: the API alone then judges what they may do. */
  profile: FlagSet | null
}

async function loadPerson(props: TabProps, username: string): Promise<Person> {
  const { session } = props
  const doc = await getXml(session, routeOf('user', username))
  const profileSlug = linkedSlug(session, doc, 'profile')
  // Profiles are read with user_profile.view only: without it the API alone judges what the caller may do.
  const profile = session.flags.has('user_profile.view')
    ? await getXml(session, routeOf('profile', profileSlug)).then(flagSetOf, () => null)
    : null
  return {
    username: childText(doc, 'username'),
    firstName: childText(doc, 'first_name'),
    lastName: childText(doc, 'last_name'),
    email: childText(doc, 'email'),
    active: childText(doc, 'is_active') === '1',
    profileSlug,
    profile,
  }
}

export function PersonPage(props: TabProps & { username: string }) {
  const { session, language, username } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const load = useLoad(() => loadPerson(props, username))
  const back = <BackTo session={session} language={language} tab="users" />
  const current = load.current
  if (current.state !== 'ready') {
    return (
      <NotReady language={language} load={load}>
        {back}
      </NotReady>
    )
  }
  const person = current.value
  const stronger = person.profile !== null && !holdsAll(session, 'profile', person.profile)
  const may = (flag: string) => session.flags.has(flag) && !stronger
  const me = person.username === session.username
  return (
    <div>
      {back}
      <section class="card" aria-labelledby="person-heading">
        <h2 id="person-heading">{t('people.user.title', { name: person.username })}</h2>
        <dl class="facts">
          <dt>{t('people.users.name')}</dt>
          <dd>{`${person.firstName} ${person.lastName}`.trim() || '—'}</dd>
          <dt>{t('people.users.email')}</dt>
          <dd>{person.email}</dd>
          <dt>{t('people.users.profile')}</dt>
          <dd>{person.profile ? person.profile.name : person.profileSlug}</dd>
          <dt>{t('people.users.state')}</dt>
          <dd>{person.active ? t('people.users.active') : t('people.users.inactive')}</dd>
        </dl>
        {stronger ? <p class="hint">{t('people.user.stronger')}</p> : null}
      </section>
      {may('user.edit') ? <EditPerson {...props} person={person} onSaved={load.reload} /> : null}
      {may('user.edit') && person.active ? <SignInLink {...props} /> : null}
      {may('user.edit') ? <NewApiKey {...props} /> : null}
      {may('user.delete') && !me ? (
        <section class="card" aria-labelledby="person-delete-heading">
          <h2 id="person-delete-heading">{t('people.user.delete.title')}</h2>
          <ConfirmButton
            language={language}
            danger
            label={t('people.user.delete')}
            question={t('people.user.delete.confirm', { name: person.username })}
            yes={t('people.user.delete.yes')}
            onConfirm={async () => {
              await deleteAt(session, routeOf('user', person.username))
              location.assign(peopleHref(session.base, { tab: 'users' }))
            }}
          />
        </section>
      ) : null}
      <SubjectAccesses {...props} subject={{ kind: 'user', name: person.username }} mayManage={!stronger} />
    </div>
  )
}

/** Names, e-mail, profile (one the caller may give) and whether the user may sign in. */
function EditPerson(props: TabProps & { person: Person; onSaved: () => void }) {
  const { session, language, person, onSaved } = props
  const t = (key: MessageKey) => message(language, key)
  const profiles = useGivableProfiles(props)
  const action = useAction()

  async function save(event: Event) {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const form = formFields(event.currentTarget as HTMLFormElement)
    form.is_active = data.get('is_active') ? '1' : '0'
    if (await action.run(() => putXml(session, routeOf('user', person.username), form))) onSaved()
  }

  const current = profiles.current
  return (
    <section class="card" aria-labelledby="person-edit-heading">
      <h2 id="person-edit-heading">{t('people.user.edit')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? (
        <LoadProblem language={language} reason={current.reason} onRetry={profiles.reload} />
      ) : null}
      {current.state === 'ready' ? (
        <form onSubmit={save}>
          <Problem language={language} reason={action.problem} />
          <div class="filters">
            <div>
              <label for="edit-first-name">{t('people.users.first_name')}</label>
              <input type="text" id="edit-first-name" name="first_name" maxLength={255} value={person.firstName} />
            </div>
            <div>
              <label for="edit-last-name">{t('people.users.last_name')}</label>
              <input type="text" id="edit-last-name" name="last_name" maxLength={255} value={person.lastName} />
            </div>
            <div>
              <label for="edit-email">{t('people.users.email')}</label>
              <input type="email" id="edit-email" name="email" required maxLength={255} value={person.email} />
            </div>
            <ProfileSelect
              id="edit-profile"
              label={t('people.users.profile')}
              profiles={current.value}
              value={person.profileSlug}
            />
          </div>
          <label class="check">
            <input type="checkbox" name="is_active" value="1" checked={person.active} /> {t('people.user.active_box')}
          </label>
          <div class="actions">
            <button type="submit">{t('people.save')}</button>
          </div>
          <p role="status" class="notice">
            {action.done ? t('people.saved') : ''}
          </p>
        </form>
      ) : null}
    </section>
  )
}

/** An answer's date-time: ISO 8601, or Unix seconds in that dialect of the API. */
const dateOf = (text: string): Date => new Date(/^\d+$/.test(text) ? Number(text) * 1000 : text)

type Made = { step: 'idle' } | { step: 'shown'; value: string; expires?: string } | { step: 'error'; reason: string }

/** A one-time sign-in link for the user (`POST /user/<u>/sign_in_link`, decision 0261), shown once. */
function SignInLink(props: TabProps & { username: string }) {
  const { session, language, username } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const made = useSignal<Made>({ step: 'idle' })
  async function make() {
    try {
      const doc = await postXml(session, `${routeOf('user', username)}/sign_in_link`)
      const expires = dateOf(childText(doc, 'expires_at')).toLocaleString(language)
      made.value = { step: 'shown', value: childText(doc, 'url'), expires }
    } catch (error) {
      made.value = { step: 'error', reason: reasonOf(error) }
    }
  }
  const current = made.value
  return (
    <section class="card" aria-labelledby="person-link-heading">
      <h2 id="person-link-heading">{t('people.link.title')}</h2>
      <p>{t('people.link.intro')}</p>
      {current.step === 'error' ? <Problem language={language} reason={current.reason} /> : null}
      {current.step === 'shown' ? (
        <CopyField
          language={language}
          id="person-link-value"
          label={t('people.link.shown', { name: username })}
          value={current.value}
          hint={t('people.link.hint', { expires: current.expires ?? '' })}
          button={t('people.link.copy')}
          copied={t('people.copied')}
        />
      ) : (
        <button type="button" onClick={make}>
          {t('people.link.make')}
        </button>
      )}
    </section>
  )
}

/** A new API key for the user (`POST /user/<u>/api_key`, decision 0258): asked twice, shown once. */
function NewApiKey(props: TabProps & { username: string }) {
  const { session, language, username } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const key = useSignal<string | null>(null)
  return (
    <section class="card" aria-labelledby="person-key-heading">
      <h2 id="person-key-heading">{t('people.key.title')}</h2>
      {key.value ? (
        <CopyField
          language={language}
          id="person-key-value"
          label={t('people.key.shown', { name: username })}
          value={key.value}
          hint={t('people.key.hint')}
          button={t('people.key.copy')}
          copied={t('people.copied')}
        />
      ) : (
        <ConfirmButton
          language={language}
          label={t('people.key.make')}
          question={t('people.key.confirm', { name: username })}
          yes={t('people.key.yes')}
          onConfirm={async () => {
            key.value = childText(await postXml(session, `${routeOf('user', username)}/api_key`), 'key')
          }}
        />
      )}
    </section>
  )
}
