/** The users tab: the platform's users, a page at a time, and a new user's form; one opened user's page. */
import { childText, getPage, postXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import { formFields, routeOf, unguessablePassword } from './people-data.js'
import { Problem, type TabProps } from './people-parts.js'
import { PEOPLE_PAGE_SIZE, peopleHref } from './people-query.js'
import { PersonPage } from './people-user.js'
import { ProfileSelect, useGivableProfiles } from './people-profiles.js'

/** The tab: its list, or the one opened in the address. */
export function PeopleUsers(props: TabProps) {
  return props.query.open ? <PersonPage {...props} username={props.query.open} /> : <UserList {...props} />
}

function UserList(props: TabProps) {
  const { session, language, platform, query } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const start = (query.page - 1) * PEOPLE_PAGE_SIZE
  const load = useLoad(async () => {
    const { doc, total } = await getPage(session, routeOf('platform', platform, 'users'), start, PEOPLE_PAGE_SIZE)
    const rows = Array.from(doc.documentElement.getElementsByTagName('user')).map((user) => ({
      username: childText(user, 'username'),
      name: `${childText(user, 'first_name')} ${childText(user, 'last_name')}`.trim(),
      email: childText(user, 'email'),
      active: childText(user, 'is_active') === '1',
    }))
    return { rows, total }
  })
  const current = load.current
  const pages = current.state === 'ready' ? Math.max(1, Math.ceil(current.value.total / PEOPLE_PAGE_SIZE)) : 1
  return (
    <div>
      <section class="card" aria-labelledby="people-users-heading">
        <h2 id="people-users-heading">{t('people.users.title')}</h2>
        {current.state === 'loading' ? <Loading language={language} /> : null}
        {current.state === 'error' ? (
          <LoadProblem language={language} reason={current.reason} onRetry={load.reload} />
        ) : null}
        {current.state === 'ready' && current.value.rows.length === 0 ? <p>{t('people.users.empty')}</p> : null}
        {current.state === 'ready' && current.value.rows.length > 0 ? (
          <div class="scroll">
            <table class="people">
              <caption class="hidden">{t('people.users.caption', { page: query.page, pages })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('people.users.username')}</th>
                  <th scope="col">{t('people.users.name')}</th>
                  <th scope="col">{t('people.users.email')}</th>
                  <th scope="col">{t('people.users.state')}</th>
                </tr>
              </thead>
              <tbody>
                {current.value.rows.map((row) => (
                  <tr key={row.username}>
                    <th scope="row">
                      <a href={peopleHref(session.base, { tab: 'users', open: row.username })}>{row.username}</a>
                    </th>
                    <td>{row.name}</td>
                    <td>{row.email}</td>
                    <td>{row.active ? t('people.users.active') : t('people.users.inactive')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {pages > 1 ? (
          <nav aria-label={t('people.pages')}>
            <ul class="plain">
              {query.page > 1 ? (
                <li>
                  <a href={peopleHref(session.base, { tab: 'users', page: query.page - 1 })}>{t('people.previous')}</a>
                </li>
              ) : null}
              <li aria-current="page">{t('people.page', { page: query.page, pages })}</li>
              {query.page < pages ? (
                <li>
                  <a href={peopleHref(session.base, { tab: 'users', page: query.page + 1 })}>{t('people.next')}</a>
                </li>
              ) : null}
            </ul>
          </nav>
        ) : null}
      </section>
      {session.flags.has('user.create') ? <NewUser {...props} /> : null}
    </div>
  )
}

/** A new user: username, names, e-mail and one of the profiles the caller may give; then their page. */
function NewUser(props: TabProps) {
  const { session, language, platform } = props
  const t = (key: MessageKey) => message(language, key)
  const profiles = useGivableProfiles(props)
  const action = useAction()

  async function create(event: Event) {
    event.preventDefault()
    const form = formFields(event.currentTarget as HTMLFormElement)
    await action.run(async () => {
      const fields = { ...form, password: unguessablePassword() }
      const doc = await postXml(session, routeOf('platform', platform, 'users'), fields)
      location.assign(peopleHref(session.base, { tab: 'users', open: childText(doc, 'username') }))
    })
  }

  const current = profiles.current
  return (
    <section class="card" aria-labelledby="people-new-user-heading">
      <h2 id="people-new-user-heading">{t('people.users.new')}</h2>
      <p class="hint">{t('people.users.new.hint')}</p>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? (
        <LoadProblem language={language} reason={current.reason} onRetry={profiles.reload} />
      ) : null}
      {current.state === 'ready' && current.value.length === 0 ? <p>{t('people.users.no_profile')}</p> : null}
      {current.state === 'ready' && current.value.length > 0 ? (
        <form onSubmit={create}>
          <Problem language={language} reason={action.problem} />
          <div class="filters">
            <div>
              <label for="new-username">{t('people.users.username')}</label>
              <input type="text" id="new-username" name="username" required maxLength={128} autocomplete="off" />
            </div>
            <div>
              <label for="new-first-name">{t('people.users.first_name')}</label>
              <input type="text" id="new-first-name" name="first_name" maxLength={255} autocomplete="off" />
            </div>
            <div>
              <label for="new-last-name">{t('people.users.last_name')}</label>
              <input type="text" id="new-last-name" name="last_name" maxLength={255} autocomplete="off" />
            </div>
            <div>
              <label for="new-email">{t('people.users.email')}</label>
              <input type="email" id="new-email" name="email" required maxLength={255} autocomplete="off" />
            </div>
            <ProfileSelect id="new-profile" label={t('people.users.profile')} profiles={current.value} />
          </div>
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              {t('people.users.create')}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  )
}
