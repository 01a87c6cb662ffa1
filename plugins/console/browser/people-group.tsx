/** One group's page: rename, delete, members (add, remove) and the group's accesses, as the caller's profile allows. */
import { childText, deleteAt, getXml, postXml, putXml } from './api.js'
import { LoadProblem, Loading, NotReady, useAction, useLoad } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import { SubjectAccesses } from './people-accesses.js'
import { routeOf } from './people-data.js'
import { BackTo, ConfirmButton, Problem, type TabProps } from './people-parts.js'
import { peopleHref } from './people-query.js'

export function GroupPage(props: TabProps & { slug: string }) {
  const { session, language, slug } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const load = useLoad(async () => childText(await getXml(session, routeOf('group', slug)), 'name'))
  const action = useAction()
  const back = <BackTo session={session} language={language} tab="groups" />
  const current = load.current
  if (current.state !== 'ready') {
    return (
      <NotReady language={language} load={load}>
        {back}
      </NotReady>
    )
  }

  async function rename(event: Event) {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') || '')
    if (await action.run(() => putXml(session, routeOf('group', slug), { name }))) load.reload()
  }

  return (
    <div>
      {back}
      <section class="card" aria-labelledby="group-heading">
        <h2 id="group-heading">{t('people.group.title', { name: current.value })}</h2>
        {session.flags.has('group.edit') ? (
          <form onSubmit={rename}>
            <Problem language={language} reason={action.problem} />
            <label for="group-name">{t('people.groups.name')}</label>
            <input type="text" id="group-name" name="name" required maxLength={255} value={current.value} />
            <div class="actions">
              <button type="submit">{t('people.group.rename')}</button>
            </div>
          </form>
        ) : null}
        {session.flags.has('group.delete') ? (
          <div class="actions">
            <ConfirmButton
              language={language}
              danger
              label={t('people.group.delete')}
              question={t('people.group.delete.confirm', { name: current.value })}
              yes={t('people.group.delete.yes')}
              onConfirm={async () => {
                await deleteAt(session, routeOf('group', slug))
                location.assign(peopleHref(session.base, { tab: 'groups' }))
              }}
            />
          </div>
        ) : null}
      </section>
      <Members {...props} />
      <SubjectAccesses {...props} subject={{ kind: 'group', name: slug }} mayManage />
    </div>
  )
}

/** The group's members, with add and remove for `group.edit`. */
function Members(props: TabProps & { slug: string }) {
  const { session, language, slug } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const load = useLoad(async () => {
    const doc = await getXml(session, `${routeOf('group', slug)}/users`)
    return Array.from(doc.documentElement.getElementsByTagName('user')).map((user) => childText(user, 'username'))
  })
  const action = useAction()
  const edit = session.flags.has('group.edit')

  async function act(work: () => Promise<unknown>) {
    if (await action.run(work)) load.reload()
  }
  function add(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const username = String(new FormData(form).get('username') || '')
    void act(() => postXml(session, `${routeOf('group', slug)}/users`, { username })).then(() => form.reset())
  }

  const current = load.current
  return (
    <section class="card" aria-labelledby="members-heading">
      <h2 id="members-heading">{t('people.members.title')}</h2>
      <Problem language={language} reason={action.problem} />
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? (
        <LoadProblem language={language} reason={current.reason} onRetry={load.reload} />
      ) : null}
      {current.state === 'ready' && current.value.length === 0 ? <p>{t('people.members.empty')}</p> : null}
      {current.state === 'ready' && current.value.length > 0 ? (
        <ul>
          {current.value.map((username) => (
            <li key={username}>
              <a href={peopleHref(session.base, { tab: 'users', open: username })}>{username}</a>{' '}
              {edit ? (
                <button
                  type="button"
                  class="quiet"
                  aria-label={t('people.members.remove_label', { name: username })}
                  onClick={() => act(() => deleteAt(session, `${routeOf('group', slug, 'user', username)}`))}
                >
                  {t('people.members.remove')}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {edit ? (
        <form onSubmit={add}>
          <label for="member-username">{t('people.members.username')}</label>
          <input type="text" id="member-username" name="username" required maxLength={128} autocomplete="off" />
          <div class="actions">
            <button type="submit">{t('people.members.add')}</button>
          </div>
        </form>
      ) : null}
    </section>
  )
}
