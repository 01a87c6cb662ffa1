import { type Handler, type HttpContext, type Router, forbidden, notFound } from '../../src/kernel/index.js'
import type { Subject } from './access.queries.js'
import {
  MANAGED_KINDS,
  accessesReply,
  grantAccess,
  mayListObjectAccesses,
  revokeAccess,
  subjectAccessesHref,
  subjectFromPath,
} from './access.service.js'

/**
 * The permission sentence (docs/authorization.md) of `GET /<kind>/<slug>/accesses`, for the
 * plugins that mount `objectAccessesHandler`.
 */
export function objectAccessesPermission(kind: string): string {
  return (
    `${kind}.view on the ${kind}, and profile user.manage_access or group.manage_access` +
    (MANAGED_KINDS.has(kind) ? ` (or ${kind}.manage_access on the ${kind})` : '') +
    ', and profile user.view and group.view (the list names users and groups)'
  )
}

function listNeeds(kind: string): string {
  const profile = 'This needs the "user.manage_access" or "group.manage_access" permission of your profile'
  return MANAGED_KINDS.has(kind) ? `${profile}, or "${kind}.manage_access" on the ${kind}.` : `${profile}.`
}

/**
 * `GET /<kind>/<slug>/accesses`: every access on one object of the access tree, oldest first.
 * The plugin owning the kind mounts it (`r.get('/media/:media/accesses',
 * objectAccessesHandler('media', 'media'), { permission: objectAccessesPermission('media') })`);
 * `param` names the path parameter holding the slug. 404 when the caller does not see the
 * object, 403 when they see it but may not manage accesses (see `objectAccessesPermission`).
 */
export function objectAccessesHandler(kind: string, param: string): Handler {
  return async (c: HttpContext) => {
    const slug = c.param(param)
    const ref = await c.authz.find(kind, slug)
    if (!ref) throw notFound(`No ${kind} "${slug}".`)
    const flags = await c.authz.flagsOn(c.principal, ref)
    if (flags !== 'all' && !flags.has(`${kind}.view`)) throw notFound(`No ${kind} "${slug}".`)
    if (!mayListObjectAccesses(c, kind, flags)) throw forbidden(listNeeds(kind))
    // The list names users and groups: the caller must be allowed to see both.
    for (const see of ['user.view', 'group.view']) {
      if (!c.authz.hasProfileFlag(c.principal, see)) {
        throw forbidden(`This needs the "${see}" permission of your profile: the list names users and groups.`)
      }
    }
    const platformId = (await c.authz.chain(ref)).at(-1)!.id
    return accessesReply(c, 200, { object: ref, platformId }, c.links.url(kind, slug, 'accesses'))
  }
}

const SUBJECTS: { kind: Subject['kind']; path: string; who: string }[] = [
  { kind: 'user', path: '/user/:username/accesses', who: "the user's platform" },
  { kind: 'group', path: '/group/:group/accesses', who: "the group's platform" },
]

/** Accesses of users and groups (list, grant, revoke), and the list of accesses on a platform. */
export function accessRoutes(r: Router): void {
  for (const { kind, path, who } of SUBJECTS) {
    const list = (c: HttpContext, subject: Subject, status: number) =>
      accessesReply(c, status, subject, subjectAccessesHref(c, subject))
    const manage =
      `profile ${kind}.manage_access on ${who} (or media.manage_access / stream.manage_access on the object), ` +
      'and every flag of the role on the object (no escalation)'

    r.get(path, async (c) => list(c, await subjectFromPath(c, kind), 200), {
      permission:
        kind === 'user' ? `the user themselves, or profile user.view on ${who}` : `profile group.view on ${who}`,
    })

    r.post(
      path,
      async (c) => {
        const subject = await subjectFromPath(c, kind)
        await grantAccess(c, subject)
        return list(c, subject, 201)
      },
      { permission: `seeing the ${kind} (as for the list), then ${manage}` },
    )

    r.delete(
      `${path}/:access`,
      async (c) => {
        const subject = await subjectFromPath(c, kind)
        await revokeAccess(c, subject, c.param('access'))
        return list(c, subject, 200)
      },
      { permission: `seeing the ${kind} (as for the list), then ${manage}` },
    )
  }

  r.get('/platform/:platform/accesses', objectAccessesHandler('platform', 'platform'), {
    permission: objectAccessesPermission('platform'),
  })
}
