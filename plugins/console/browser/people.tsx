/**
 * The people section (`/console/people`): the users, groups, roles, profiles and accesses of the signed-in user's
 * platform, one tab each (`?tab=groups`), the opened one in the address (`&open=night-shift`). Only what the user's
 * profile allows is offered; the API decides every request and its refusals are shown.
 */
import { type Session, ownPlatformSlug } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, message } from './messages/index.js'
import { PeopleAccesses } from './people-accesses.js'
import { FlagSets } from './people-flag-sets.js'
import { PeopleGroups } from './people-groups.js'
import { TABS, TAB_NEEDS, type Tab, peopleHref, readPeopleQuery } from './people-query.js'
import type { TabProps } from './people-parts.js'
import { PeopleUsers } from './people-users.js'

export function People(props: { session: Session; language: Language }) {
  const { session, language } = props
  const offered = TABS.filter((tab) => TAB_NEEDS[tab].some((flag) => session.flags.has(flag)))
  const query = readPeopleQuery(location.search, offered)
  const platform = useLoad(() => ownPlatformSlug(session))
  if (!session.flags.has('user.view') && !session.flags.has('group.view')) {
    return <p class="card">{message(language, 'people.not_allowed')}</p>
  }
  const current = platform.current
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error')
    return <LoadProblem language={language} reason={current.reason} onRetry={platform.reload} />
  const tabProps = { session, language, platform: current.value, query }
  return (
    <div>
      <nav class="tabs" aria-label={message(language, 'people.tabs')}>
        <ul class="plain">
          {offered.map((tab) => (
            <li key={tab}>
              <a href={peopleHref(session.base, { tab })} aria-current={tab === query.tab ? 'page' : undefined}>
                {message(language, `people.tab.${tab}`)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {!MANAGES.some((flag) => session.flags.has(flag)) ? (
        <p class="hint">{message(language, 'people.view_only')}</p>
      ) : null}
      <TabScreen tab={query.tab} {...tabProps} />
    </div>
  )
}

/** The flags of someone who manages people (a Publisher holds none: they only see who is there). */
const MANAGES = [
  'user.create',
  'user.edit',
  'user.delete',
  'user.manage_access',
  'group.create',
  'group.edit',
  'group.delete',
  'group.manage_access',
]

function TabScreen(props: TabProps & { tab: Tab }) {
  const { tab, ...rest } = props
  if (tab === 'groups') return <PeopleGroups {...rest} />
  if (tab === 'roles') return <FlagSets {...rest} kind="role" />
  if (tab === 'profiles') return <FlagSets {...rest} kind="profile" />
  if (tab === 'accesses') return <PeopleAccesses {...rest} />
  return <PeopleUsers {...rest} />
}
