import {
  type HttpContext,
  type ObjectRef,
  PLATFORM_ADMIN_FLAG,
  type Reply,
  forbidden,
  notFound,
  reply,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { AccessEntity } from './access.entity.js'
import { type AccessOwner, type RoleRow, type Subject, accessQueries } from './access.queries.js'
import { type AccessView, accessListXml } from './access.xml.js'
import { ROLE_FLAGS } from './role-flags.js'

/** Length of access ids (the end of an access's href): random, URL-safe. */
export const ACCESS_ID_LENGTH = 12

type Flags = ReadonlySet<string> | 'all'

const holds = (flags: Flags, flag: string): boolean => flags === 'all' || flags.has(flag)

/** Kinds whose role model has `manage_access` (media, stream): that flag on the object lets its holder grant on it. */
export const MANAGED_KINDS: ReadonlySet<string> = new Set(
  Object.entries(ROLE_FLAGS)
    .filter(([, actions]) => (actions as readonly string[]).includes('manage_access'))
    .map(([model]) => model),
)

/** The profile flag that lets its holder manage the accesses of subjects of this kind. */
const manageFlag = (subject: Subject): string => `${subject.kind}.manage_access`

/**
 * The user (`:username`) or group (`:group`) of the path, once the caller may see it: 404
 * unless it is the caller themselves (API-DECISIONS: a user may always list their own
 * accesses) or the caller sees its platform and holds `user.view` (`group.view`).
 */
export async function subjectFromPath(c: HttpContext, kind: Subject['kind']): Promise<Subject> {
  const reader = c.reader
  const name = c.param(kind === 'user' ? 'username' : 'group')
  const subject = kind === 'user' ? await accessQueries.user(reader, name) : await accessQueries.group(reader, name)
  if (!subject) throw notFound(`No ${kind} "${name}".`)
  if (kind === 'user' && subject.id === c.principal.id) return subject
  const see = `${kind}.view`
  await c.authz.requireProfile(c.principal, see, subject.platformId, { name, kind, see })
  return subject
}

/** Answers a list of accesses (Range applies), the slug of each object resolved once. */
export async function accessesReply(c: HttpContext, status: number, owner: AccessOwner, href: string): Promise<Reply> {
  const reader = c.reader
  const rows = await c.list(await accessQueries.count(reader, owner), (page) =>
    accessQueries.page(reader, owner, page.offset, page.limit),
  )
  const kinds = new Set(c.authz.kindNames())
  const slugs = new Map<string, Promise<string | null>>()
  const slugOf = (ref: ObjectRef): Promise<string | null> => {
    // A kind whose plugin is not enabled any more has no address: an empty link.
    if (!kinds.has(ref.kind)) return Promise.resolve(null)
    const key = `${ref.kind}:${ref.id}`
    let slug = slugs.get(key)
    // Lists name only what the caller may see: an object hidden from them gets an empty link.
    if (!slug) {
      slug = c.authz.hiddenFrom(c.principal, ref).then((hidden) => (hidden ? null : c.authz.slugOf(ref)))
      slugs.set(key, slug)
    }
    return slug
  }
  const items: AccessView[] = []
  for (const row of rows) items.push({ ...row, objectSlug: await slugOf({ kind: row.objectKind, id: row.objectId }) })
  return reply.xml(status, accessListXml(c.links, href, items))
}

/** The address of a subject's access list. */
export const subjectAccessesHref = (c: HttpContext, subject: Subject): string =>
  c.links.url(subject.kind, subject.name, 'accesses')

/**
 * Whether the caller may list the accesses on an object they see (`flags` on it): with their
 * profile's `user.manage_access` or `group.manage_access`, or with `<kind>.manage_access`
 * on the object where the role model has it.
 */
export function mayListObjectAccesses(c: HttpContext, kind: string, flags: Flags): boolean {
  if (c.authz.hasProfileFlag(c.principal, 'user.manage_access')) return true
  if (c.authz.hasProfileFlag(c.principal, 'group.manage_access')) return true
  return MANAGED_KINDS.has(kind) && holds(flags, `${kind}.manage_access`)
}

/** The 403 message of the permissions that let a caller manage accesses of `subject` on a `kind`. */
function needsManage(subject: Subject, kind: string | undefined): string {
  const profile = `This needs the "${manageFlag(subject)}" permission of your profile`
  return kind && MANAGED_KINDS.has(kind) ? `${profile}, or "${kind}.manage_access" on the ${kind}.` : `${profile}.`
}

interface Target {
  ref: ObjectRef
  /** The caller's flags on it. */
  flags: Flags
}

/**
 * Whether the caller may manage the accesses of `subject` on `target`: with the profile flag
 * (`user.manage_access`, `group.manage_access`), or with the object's `manage_access` role
 * flag where its model has one (media, stream).
 */
function mayManage(c: HttpContext, subject: Subject, target: Target | undefined): boolean {
  if (c.authz.hasProfileFlag(c.principal, manageFlag(subject))) return true
  return !!target && MANAGED_KINDS.has(target.ref.kind) && holds(target.flags, `${target.ref.kind}.manage_access`)
}

/** No escalation: 403 unless the caller holds every flag of the role on the object. */
function requireEveryFlag(target: Target, role: Pick<RoleRow, 'slug' | 'permissions'>, verb: string): void {
  if (target.flags === 'all') return
  const flags = target.flags
  const missing = role.permissions.filter((flag) => !flags.has(flag))
  if (missing.length > 0) {
    throw forbidden(
      `You may not ${verb} role "${role.slug}" on this ${target.ref.kind}: you do not hold ${missing.join(', ')} there.`,
    )
  }
}

/**
 * The caller's flags on the object of `kind` named `slug`, when it is in the subject's
 * platform and the caller sees it; undefined otherwise. Missing, foreign and invisible
 * objects look alike, so the answer reveals nothing of other platforms.
 */
async function objectFor(c: HttpContext, subject: Subject, kind: string, slug: string): Promise<Target | undefined> {
  const ref = await c.authz.find(kind, slug)
  if (!ref) return undefined
  if ((await c.authz.chain(ref)).at(-1)!.id !== subject.platformId) return undefined
  const flags = await c.authz.flagsOn(c.principal, ref)
  return (await c.authz.sees(c.principal, ref, flags)) ? { ref, flags } : undefined
}

const listNames = (names: string[]): string => names.join(', ')

/**
 * `POST /user/<username>/accesses` (and groups): grants `role` on the one object named by a
 * field of its kind (`platform=<slug>`, `media=<slug>`, ...). Granting the same role on the
 * same object again changes nothing (docs/decisions/0060-duplicates-are-idempotent.md).
 */
export async function grantAccess(c: HttpContext, subject: Subject): Promise<void> {
  const v = c.fields(await c.form(), 'create')
  const kindNames = c.authz.kindNames()
  const sent = kindNames.filter((kind) => v.has(kind))
  let target: Target | undefined
  if (sent.length === 0) {
    v.fail('object', `is required: send the object's slug in one field named for its kind (${listNames(kindNames)})`)
  } else if (sent.length > 1) {
    for (const kind of sent) v.fail(kind, `is one of several object fields (${listNames(sent)}): send exactly one`)
  } else {
    const kind = sent[0]!
    const slug = v.string(kind, { required: true, max: 64 })
    if (slug) {
      target = await objectFor(c, subject, kind, slug)
      if (!target) {
        v.fail(
          kind,
          kind === 'platform'
            ? `must be "${subject.platformSlug}", the platform of the ${subject.kind}`
            : `no ${kind} "${slug}" on platform "${subject.platformSlug}"`,
        )
      }
    }
  }
  const roleSlug = v.string('role', { required: true, max: 64 })
  let role: RoleRow | undefined
  if (roleSlug) {
    role = await accessQueries.role(c.reader, roleSlug)
    if (role?.platformId !== subject.platformId) {
      role = undefined
      v.fail('role', `no role "${roleSlug}" on platform "${subject.platformSlug}"`)
    }
  }
  // Callers without the profile flag may grant only on an object they manage: they learn
  // nothing about the request's details (which objects or roles exist) before that.
  if (!mayManage(c, subject, target)) throw forbidden(needsManage(subject, target?.ref.kind ?? sent[0]))
  v.done()
  const ref = target!.ref
  requireEveryFlag(target!, role!, 'grant')
  await retryOnConflict(() =>
    transaction(c.em, async (tx) => {
      const same = { [subject.kind]: subject.id, objectKind: ref.kind, objectId: ref.id, role: role!.id }
      if ((await tx.count(AccessEntity, same)) > 0) return
      tx.create(AccessEntity, {
        publicId: randomToken(ACCESS_ID_LENGTH),
        user: subject.kind === 'user' ? subject.id : null,
        group: subject.kind === 'group' ? subject.id : null,
        objectKind: ref.kind,
        objectId: ref.id,
        role: role!.id,
        platform: subject.platformId,
        createdAt: new Date(),
      })
    }),
  )
}

/**
 * `DELETE /user/<username>/accesses/<id>` (and groups): 404 unless the access is the
 * subject's; revoking needs what granting it would need (docs/decisions/0058-who-may-list-grant-and-revoke.md).
 */
export async function revokeAccess(c: HttpContext, subject: Subject, publicId: string): Promise<void> {
  const grant = await accessQueries.grant(c.reader, subject, publicId)
  if (!grant) throw notFound(`No access "${publicId}" of ${subject.kind} "${subject.name}".`)
  if (c.authz.kindNames().includes(grant.object.kind)) {
    const target = { ref: grant.object, flags: await c.authz.flagsOn(c.principal, grant.object) }
    // An access on something the caller may not see (a hidden stream) is as if it did not exist.
    if (!(await c.authz.sees(c.principal, grant.object, target.flags))) {
      throw notFound(`No access "${publicId}" of ${subject.kind} "${subject.name}".`)
    }
    if (!mayManage(c, subject, target)) throw forbidden(needsManage(subject, grant.object.kind))
    requireEveryFlag(target, { slug: grant.roleSlug, permissions: grant.permissions }, 'revoke')
  } else if (
    !c.authz.hasProfileFlag(c.principal, manageFlag(subject)) ||
    !c.authz.hasProfileFlag(c.principal, PLATFORM_ADMIN_FLAG)
  ) {
    // The object's plugin is not enabled, so its flags cannot be computed: administrators only.
    throw forbidden(`This needs the "${manageFlag(subject)}" and "${PLATFORM_ADMIN_FLAG}" permissions of your profile.`)
  }
  await c.em.nativeDelete(AccessEntity, { id: grant.id })
}
