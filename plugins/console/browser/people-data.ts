/**
 * What the people section reads from the API and how: the caller's platform, flag tables of roles and profiles, the
 * sets of flags the caller may hand out. The API stays the judge; these only decide what is offered.
 */
import { type Session, childText, getXml, slugOfHref } from './api.js'

/** One model of a flag table (`<permissions><user><view>1</view>...</user>...`): its actions in the API's order. */
export interface FlagModel {
  model: string
  actions: string[]
}

/** A role or a profile as the section shows it. */
export interface FlagSet {
  slug: string
  name: string
  /** Bytes; profiles only (0 is unlimited). */
  quota: number | null
  models: FlagModel[]
  /** `model.action` of every flag granted. */
  granted: string[]
}

export type FlagSetKind = 'role' | 'profile'

/** The path of an API route with a user-given part: `/user/al%20ice`. */
export const routeOf = (...parts: string[]): string => parts.map((part) => `/${encodeURIComponent(part)}`).join('')

/** Reads a role's or profile's info. */
export function flagSetOf(doc: Document): FlagSet {
  const root = doc.documentElement
  const table = root.getElementsByTagName('permissions')[0]
  const models: FlagModel[] = []
  const granted: string[] = []
  for (const model of table ? Array.from(table.children) : []) {
    const actions = Array.from(model.children).map((action) => action.tagName)
    models.push({ model: model.tagName, actions })
    for (const action of Array.from(model.children)) {
      if (action.textContent === '1') granted.push(`${model.tagName}.${action.tagName}`)
    }
  }
  const quota = root.getElementsByTagName('quota')[0]
  return {
    slug: childText(root, 'slug'),
    name: childText(root, 'name'),
    quota: quota ? Number(quota.textContent) : null,
    models,
    granted,
  }
}

/** Every role or profile of the platform with its flags (one request each: a platform has a handful). */
export async function loadFlagSets(session: Session, platform: string, kind: FlagSetKind): Promise<FlagSet[]> {
  const list = await getXml(session, routeOf('platform', platform, `${kind}s`))
  const slugs = Array.from(list.documentElement.getElementsByTagName(kind)).map((element) =>
    slugOfHref(session, element.getAttribute('href')),
  )
  return Promise.all(slugs.map(async (slug) => flagSetOf(await getXml(session, routeOf(kind, slug)))))
}

/**
 * Whether the caller holds a flag they would hand out (docs/authorization.md, "No escalation"). Profile flags: their
 * profile's. Role flags on the platform: all of them with `platform.edit` (platform and installation administrators);
 * otherwise the console counts only their profile's `platform.*` flags (their roles through accesses count too for the
 * API, which may accept more than is offered).
 */
export function holdsFlag(session: Session, kind: FlagSetKind, flag: string): boolean {
  if (kind === 'profile') return session.flags.has(flag)
  return session.flags.has('platform.edit') || (flag.startsWith('platform.') && session.flags.has(flag))
}

/** Whether the caller holds every flag of a role or profile: it is theirs to give, change or delete. */
export const holdsAll = (session: Session, kind: FlagSetKind, set: FlagSet): boolean =>
  set.granted.every((flag) => holdsFlag(session, kind, flag))

/** The permission fields of a role or profile form: every flag of the table, `1` or `0`. */
export function permissionFields(models: FlagModel[], granted: ReadonlySet<string>): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const { model, actions } of models) {
    for (const action of actions) {
      fields[`permission[${model}][${action}]`] = granted.has(`${model}.${action}`) ? '1' : '0'
    }
  }
  return fields
}

/** The profile flag that allows each action on roles (`user_role.*`) or profiles (`user_profile.*`). */
export const flagOn = (kind: FlagSetKind, action: 'create' | 'edit' | 'delete'): string =>
  `${kind === 'role' ? 'user_role' : 'user_profile'}.${action}`

/** Quotas are typed in megabytes (the API counts bytes; 0 is unlimited). */
export const MEGABYTE = 1_000_000

/** A form's text fields by name (ES2017: no Object.fromEntries). */
export function formFields(form: HTMLFormElement): Record<string, string> {
  const fields: Record<string, string> = {}
  new FormData(form).forEach((value, name) => {
    if (typeof value === 'string') fields[name] = value
  })
  return fields
}

/**
 * The password a new user is created with (the API requires one): random, shown to nobody. The user chooses their
 * own through a sign-in link; until then nobody can sign in as them.
 */
export function unguessablePassword(): string {
  const bytes = new Uint8Array(24)
  crypto.getRandomValues(bytes)
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
}
