/** The groups tab: the platform's groups and a new group's form; one opened group's page. */
import { childText, getXml, postXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type MessageKey, message } from './messages/index.js'
import { GroupPage } from './people-group.js'
import { routeOf } from './people-data.js'
import { Problem, type TabProps } from './people-parts.js'
import { peopleHref } from './people-query.js'

/** The tab: its list, or the one opened in the address. */
export function PeopleGroups(props: TabProps) {
  return props.query.open ? <GroupPage {...props} slug={props.query.open} /> : <GroupList {...props} />
}

function GroupList(props: TabProps) {
  const { session, language, platform } = props
  const t = (key: MessageKey) => message(language, key)
  const load = useLoad(async () => {
    const doc = await getXml(session, routeOf('platform', platform, 'groups'))
    return Array.from(doc.documentElement.getElementsByTagName('group')).map((group) => ({
      slug: childText(group, 'slug'),
      name: childText(group, 'name'),
    }))
  })
  const current = load.current
  return (
    <div>
      <section class="card" aria-labelledby="groups-heading">
        <h2 id="groups-heading">{t('people.groups.title')}</h2>
        {current.state === 'loading' ? <Loading language={language} /> : null}
        {current.state === 'error' ? (
          <LoadProblem language={language} reason={current.reason} onRetry={load.reload} />
        ) : null}
        {current.state === 'ready' && current.value.length === 0 ? <p>{t('people.groups.empty')}</p> : null}
        {current.state === 'ready' && current.value.length > 0 ? (
          <ul>
            {current.value.map((group) => (
              <li key={group.slug}>
                <a href={peopleHref(session.base, { tab: 'groups', open: group.slug })}>{group.name}</a>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      {session.flags.has('group.create') ? <NewGroup {...props} /> : null}
    </div>
  )
}

/** A new group by its name; then its page. */
function NewGroup(props: TabProps) {
  const { session, language, platform } = props
  const t = (key: MessageKey) => message(language, key)
  const action = useAction()
  async function create(event: Event) {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') || '')
    await action.run(async () => {
      const doc = await postXml(session, routeOf('platform', platform, 'groups'), { name })
      location.assign(peopleHref(session.base, { tab: 'groups', open: childText(doc, 'slug') }))
    })
  }
  return (
    <section class="card" aria-labelledby="new-group-heading">
      <h2 id="new-group-heading">{t('people.groups.new')}</h2>
      <form onSubmit={create}>
        <Problem language={language} reason={action.problem} />
        <label for="new-group-name">{t('people.groups.name')}</label>
        <input type="text" id="new-group-name" name="name" required maxLength={255} autocomplete="off" />
        <div class="actions">
          <button type="submit">{t('people.groups.create')}</button>
        </div>
      </form>
    </section>
  )
}
