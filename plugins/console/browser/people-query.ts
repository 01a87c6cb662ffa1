/**
 * What the people section shows, kept in the address (`/console/people?tab=groups&open=night-shift`): a link, the
 * back button and a reload show the same screen. Each tab is offered to the profiles holding one of its flags.
 */

export const TABS = ['users', 'groups', 'roles', 'profiles', 'accesses'] as const
export type Tab = (typeof TABS)[number]

/** The profile flags that let a user see a tab's list (the API decides each request anyway). */
export const TAB_NEEDS: Record<Tab, readonly string[]> = {
  users: ['user.view'],
  groups: ['group.view'],
  roles: ['user_role.view'],
  profiles: ['user_profile.view'],
  // The platform's list names users and groups: it needs both views too (docs/api/identity.md, Accesses).
  accesses: ['user.manage_access', 'group.manage_access'],
}

/** Users per page of the users' list. */
export const PEOPLE_PAGE_SIZE = 25

export interface PeopleQuery {
  tab: Tab
  /** The user, group, role or profile opened in the tab; '' for the tab's list. */
  open: string
  /** From 1. */
  page: number
}

/** The query of an address's search part; anything unknown falls back to the first tab `offered`. */
export function readPeopleQuery(search: string, offered: readonly Tab[]): PeopleQuery {
  const params = new URLSearchParams(search)
  const asked = params.get('tab') as Tab | null
  const tab = asked && offered.includes(asked) ? asked : (offered[0] ?? 'users')
  const page = Number(params.get('page'))
  return { tab, open: params.get('open') || '', page: Number.isSafeInteger(page) && page > 1 ? page : 1 }
}

/** The address of the people section for `query` (defaults left out). */
export function peopleHref(base: string, query: Partial<PeopleQuery>): string {
  const params = new URLSearchParams()
  if (query.tab) params.set('tab', query.tab)
  if (query.open) params.set('open', query.open)
  if (query.page && query.page > 1) params.set('page', String(query.page))
  const text = params.toString()
  return `${base}/console/people${text ? `?${text}` : ''}`
}
