import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlatformEntity, createPlatform } from '../../../plugins/platforms/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import {
  ACTORS,
  type Actor,
  type Grant,
  PASSWORD,
  type TenantObjects,
  World,
  unique,
} from './authorization-matrix.fixtures.js'

/**
 * The authorization matrix (docs/authorization.md): every route of the route table × six
 * callers → the status the implemented model answers. P is the platform every row acts on,
 * Q another tenant:
 * - admin: the installation administrator (app.client);
 * - platformAdmin: a user of P with P's default Administrator profile;
 * - withRight: a user of P holding exactly what the row needs (profile flags, or for role-flag
 *   rows a role through an access, to a group or to the user);
 * - without: a user of P lacking it (404 when they may not see the target, 403 when they may);
 * - otherTenant: a user of Q with Q's Administrator profile (powerful at home, nothing on P);
 * - inactive: an installation administrator whose is_active is 0.
 * Anonymous requests are checked too. Mutating rows make a fresh target per caller, and
 * check that the change happened exactly when the answer says it succeeded.
 */

interface Target {
  /** The concrete path (with query). */
  path: string
  form?: Record<string, string | number>
  headers?: Record<string, string>
  /** Whether the request's change is in the database: true exactly when the answer is a success. */
  applied?: () => Promise<boolean>
  /** A raw body (multipart uploads), sent with `headers`. */
  body?: Buffer
  /** Extra checks of a successful answer. */
  check?: (res: Response) => void
}

interface Row {
  /** `ALL`: a route answering every method (tus); `as` says which one the row sends. */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'ALL'
  /** The method sent, for an `ALL` route. */
  as?: 'POST' | 'HEAD' | 'PATCH' | 'DELETE' | 'OPTIONS'
  /** The route's path pattern, exactly as in the route table. */
  route: string
  /** Tells apart several rows of one route. */
  variant?: string
  /** What the withRight and without callers of P hold. */
  withRight: Grant
  without: Grant
  /** Makes the targets for one caller. */
  setup(actor: Actor): Promise<Target>
  expect: Record<Actor, number>
  /** Public routes: anonymous requests get this too (401 otherwise). */
  anonymous?: number
  /**
   * Cells where the implementation differs from the documented model: `expect` holds the
   * documented status and the cell runs as `it.fails`, with the reason (see the report).
   */
  knownIssues?: Partial<Record<Actor, string>>
}

const PV = 'platform.view'

/** The common shape: the three allowed callers get `ok`, the one without `refused`, the other tenant 404. */
const allowed = (ok: number, refused: 403 | 404): Record<Actor, number> => ({
  admin: ok,
  platformAdmin: ok,
  withRight: ok,
  without: refused,
  otherTenant: 404,
  inactive: 401,
})

let app: TestApp
let w: World
const actors = {} as Record<'platformAdmin' | 'otherTenant' | 'inactive', DigestClient>
const P = (): TenantObjects => w.p

/** A fresh user of P (flagless profile, not a member of anything). */
const freshUser = (): Promise<string> => w.user(P().platform, P().profile)

/** The username of a row's caller. */
async function usernameOf(actor: Actor, withRight: Grant, without: Grant): Promise<string> {
  switch (actor) {
    case 'admin':
      return app.admin.username
    case 'withRight':
      return (await w.clientWith(withRight)).username
    case 'without':
      return (await w.clientWith(without)).username
    default:
      return actors[actor].username
  }
}

/**
 * A row of the file store, where each caller acts on their own store: everyone active
 * succeeds (the other tenant too, at home), but the caller lacking the row's profile flag.
 */
function own(row: Omit<Row, 'setup' | 'expect'> & { target: (username: string) => Promise<Target>; ok: number }): Row {
  const refused = row.withRight.profile.every((flag) => row.without.profile.includes(flag)) ? row.ok : 403
  return {
    ...row,
    setup: async (actor) => row.target(await usernameOf(actor, row.withRight, row.without)),
    expect: {
      admin: row.ok,
      platformAdmin: row.ok,
      withRight: row.ok,
      without: refused,
      otherTenant: row.ok,
      inactive: 401,
    },
  }
}

/** A row acting on the store of somebody else (a user of P): 404 for everyone, administrators included. */
function nobodysFile(method: Row['method'], route: string, setup: () => Promise<Target>): Row {
  return {
    method,
    route,
    variant: "another user's",
    withRight: { profile: ['file.create', 'file.edit', 'file.delete', 'folder.create'] },
    without: { profile: [] },
    setup,
    expect: { admin: 404, platformAdmin: 404, withRight: 404, without: 404, otherTenant: 404, inactive: 401 },
  }
}

const ROWS: Row[] = [
  ...uploadEndpointRows(),
  // root
  {
    method: 'GET',
    route: '/',
    withRight: { profile: [] },
    without: { profile: [] },
    setup: async () => ({ path: '/' }),
    expect: { admin: 200, platformAdmin: 200, withRight: 200, without: 200, otherTenant: 200, inactive: 401 },
  },

  // platforms
  {
    method: 'GET',
    route: '/platforms',
    withRight: { profile: ['instance.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: '/platforms' }),
    expect: { admin: 200, platformAdmin: 403, withRight: 200, without: 403, otherTenant: 403, inactive: 401 },
  },
  {
    method: 'POST',
    route: '/platforms',
    withRight: { profile: ['instance.view'] },
    without: { profile: [PV] },
    setup: async () => {
      const name = unique('Gamma')
      return {
        path: '/platforms',
        form: { name, max_users: 0, max_space: 0 },
        applied: () => w.exists('platform', { name }),
      }
    },
    expect: { admin: 201, platformAdmin: 403, withRight: 201, without: 403, otherTenant: 403, inactive: 401 },
  },
  {
    method: 'GET',
    route: '/platform/:platform',
    withRight: { profile: [], role: [PV], via: 'group' },
    without: { profile: [] },
    setup: async () => ({ path: `/platform/${P().platform.slug}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/platform/:platform',
    variant: 'name, role through the user',
    withRight: { profile: [], role: [PV, 'platform.edit'], via: 'user' },
    without: { profile: [PV] },
    setup: async () => {
      const name = unique('Tenant Alpha renamed')
      return {
        path: `/platform/${P().platform.slug}`,
        form: { name },
        applied: () => w.exists('platform', { id: P().platform.id, name }),
      }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'PUT',
    route: '/platform/:platform',
    variant: 'name, role through a group',
    withRight: { profile: [], role: [PV, 'platform.edit'], via: 'group' },
    without: { profile: [], role: [PV], via: 'group' },
    setup: async () => {
      const name = unique('Tenant Alpha renamed')
      return {
        path: `/platform/${P().platform.slug}`,
        form: { name },
        applied: () => w.exists('platform', { id: P().platform.id, name }),
      }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'PUT',
    route: '/platform/:platform',
    variant: 'max_space: installation administrators only',
    withRight: { profile: [], role: [PV, 'platform.edit'], via: 'group' },
    without: { profile: [PV] },
    setup: async () => {
      const maxSpace = 1_000_000_000 + Number(unique('n').slice(2))
      return {
        path: `/platform/${P().platform.slug}`,
        form: { max_space: maxSpace },
        applied: () => w.exists('platform', { id: P().platform.id, maxSpace }),
      }
    },
    expect: { admin: 200, platformAdmin: 403, withRight: 403, without: 403, otherTenant: 404, inactive: 401 },
  },

  // users
  {
    method: 'GET',
    route: '/platform/:platform/users',
    withRight: { profile: [PV, 'user.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/users` }),
    expect: allowed(200, 403),
  },
  {
    method: 'POST',
    route: '/platform/:platform/users',
    withRight: { profile: [PV, 'user.create'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = unique('alpha-new')
      return {
        path: `/platform/${P().platform.slug}/users`,
        form: { username, email: `${username}@example.org`, password: PASSWORD, profile: P().profile },
        applied: () => w.exists('user', { username }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'GET',
    route: '/user/:username',
    withRight: { profile: [PV, 'user.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/user/${P().user}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/user/:username',
    withRight: { profile: [PV, 'user.view', 'user.edit'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      const firstName = unique('First')
      return {
        path: `/user/${username}`,
        form: { first_name: firstName },
        applied: () => w.exists('user', { username, firstName }),
      }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'DELETE',
    route: '/user/:username',
    withRight: { profile: [PV, 'user.view', 'user.delete'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      return { path: `/user/${username}`, applied: async () => !(await w.exists('user', { username })) }
    },
    expect: allowed(204, 403),
  },
  {
    method: 'GET',
    route: '/authentication/public_key',
    withRight: { profile: [] },
    without: { profile: [] },
    setup: async () => ({
      path: '/authentication/public_key',
      check: (res) => expect(res.body).toContain('-----BEGIN PUBLIC KEY-----'),
    }),
    expect: { admin: 200, platformAdmin: 200, withRight: 200, without: 200, otherTenant: 200, inactive: 200 },
    anonymous: 200,
  },
  {
    method: 'GET',
    route: '/user/:username/authenticate',
    withRight: { profile: [PV, 'user.view'] },
    without: { profile: [PV] },
    setup: async () => ({
      path: `/user/${P().user}/authenticate?cipher=${w.cipher()}`,
      check: (res) => expect(res.headers.location).toBe(`${app.url}/user/${P().user}`),
    }),
    expect: allowed(302, 404),
  },

  // groups
  {
    method: 'GET',
    route: '/platform/:platform/groups',
    withRight: { profile: [PV, 'group.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/groups` }),
    expect: allowed(200, 403),
  },
  {
    method: 'POST',
    route: '/platform/:platform/groups',
    withRight: { profile: [PV, 'group.create'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const name = unique('alpha-made-group')
      return {
        path: `/platform/${P().platform.slug}/groups`,
        form: { name },
        applied: () => w.exists('group', { name }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'GET',
    route: '/group/:group',
    withRight: { profile: [PV, 'group.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/group/${P().group}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/group/:group',
    withRight: { profile: [PV, 'group.view', 'group.edit'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const slug = await w.group(P().platform)
      const name = unique('alpha-renamed')
      return { path: `/group/${slug}`, form: { name }, applied: () => w.exists('group', { slug, name }) }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'DELETE',
    route: '/group/:group',
    withRight: { profile: [PV, 'group.view', 'group.delete'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const slug = await w.group(P().platform)
      return { path: `/group/${slug}`, applied: async () => !(await w.exists('group', { slug })) }
    },
    expect: allowed(204, 403),
  },
  {
    method: 'GET',
    route: '/group/:group/users',
    withRight: { profile: [PV, 'group.view', 'user.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/group/${P().group}/users` }),
    expect: allowed(200, 404),
  },
  {
    method: 'POST',
    route: '/group/:group/users',
    withRight: { profile: [PV, 'group.view', 'group.edit', 'user.view'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const slug = await w.group(P().platform)
      const username = await freshUser()
      return {
        path: `/group/${slug}/users`,
        form: { username },
        applied: () => w.exists('member', { group: { slug }, user: { username } }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'DELETE',
    route: '/group/:group/user/:username',
    withRight: { profile: [PV, 'group.view', 'group.edit', 'user.view'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const username = await freshUser()
      const slug = await w.group(P().platform, [username])
      return {
        path: `/group/${slug}/user/${username}`,
        applied: async () => !(await w.exists('member', { group: { slug }, user: { username } })),
      }
    },
    expect: allowed(200, 403),
  },

  // roles
  {
    method: 'GET',
    route: '/platform/:platform/roles',
    withRight: { profile: [PV, 'user_role.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/roles` }),
    expect: allowed(200, 403),
  },
  {
    method: 'POST',
    route: '/platform/:platform/roles',
    withRight: { profile: [PV, 'user_role.create'] },
    without: { profile: [PV, 'user_role.view'] },
    setup: async () => {
      const name = unique('alpha-made-role')
      return {
        path: `/platform/${P().platform.slug}/roles`,
        form: { name, 'permission[Platform][view]': 1 },
        applied: () => w.exists('role', { name }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'POST',
    route: '/platform/:platform/roles',
    variant: 'with quota: creates a profile',
    withRight: { profile: [PV, 'user_profile.create'] },
    without: { profile: [PV, 'user_profile.view'] },
    setup: async () => {
      const name = unique('alpha-made-profile')
      return {
        path: `/platform/${P().platform.slug}/roles`,
        form: { name, quota: 0, 'permission[Platform][view]': 1 },
        applied: () => w.exists('profile', { name }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'GET',
    route: '/role/:role',
    withRight: { profile: [PV, 'user_role.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/role/${P().role}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/role/:role',
    withRight: { profile: [PV, 'user_role.view', 'user_role.edit'] },
    without: { profile: [PV, 'user_role.view'] },
    setup: async () => {
      const slug = await w.role(P().platform, [PV])
      const name = unique('alpha-renamed')
      return { path: `/role/${slug}`, form: { name }, applied: () => w.exists('role', { slug, name }) }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'DELETE',
    route: '/role/:role',
    withRight: { profile: [PV, 'user_role.view', 'user_role.delete'] },
    without: { profile: [PV, 'user_role.view'] },
    setup: async () => {
      const slug = await w.role(P().platform, [PV])
      return { path: `/role/${slug}`, applied: async () => !(await w.exists('role', { slug })) }
    },
    expect: allowed(204, 403),
  },

  // profiles
  {
    method: 'GET',
    route: '/platform/:platform/profiles',
    withRight: { profile: [PV, 'user_profile.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/profiles` }),
    expect: allowed(200, 403),
  },
  {
    method: 'POST',
    route: '/platform/:platform/profiles',
    withRight: { profile: [PV, 'user_profile.create'] },
    without: { profile: [PV, 'user_profile.view'] },
    setup: async () => {
      const name = unique('alpha-made-profile')
      return {
        path: `/platform/${P().platform.slug}/profiles`,
        form: { name, quota: 0, 'permission[Platform][view]': 1 },
        applied: () => w.exists('profile', { name }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'GET',
    route: '/profile/:profile',
    withRight: { profile: [PV, 'user_profile.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/profile/${P().profile}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/profile/:profile',
    withRight: { profile: [PV, 'user_profile.view', 'user_profile.edit'] },
    without: { profile: [PV, 'user_profile.view'] },
    setup: async () => {
      const slug = await w.profile(P().platform, [])
      const name = unique('alpha-renamed')
      return { path: `/profile/${slug}`, form: { name }, applied: () => w.exists('profile', { slug, name }) }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'DELETE',
    route: '/profile/:profile',
    withRight: { profile: [PV, 'user_profile.view', 'user_profile.delete'] },
    without: { profile: [PV, 'user_profile.view'] },
    setup: async () => {
      const slug = await w.profile(P().platform, [])
      return { path: `/profile/${slug}`, applied: async () => !(await w.exists('profile', { slug })) }
    },
    expect: allowed(204, 403),
  },

  // accesses
  {
    method: 'GET',
    route: '/user/:username/accesses',
    withRight: { profile: [PV, 'user.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/user/${P().user}/accesses` }),
    expect: allowed(200, 404),
  },
  {
    method: 'POST',
    route: '/user/:username/accesses',
    withRight: { profile: [PV, 'user.view', 'user.manage_access'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      return {
        path: `/user/${username}/accesses`,
        form: { platform: P().platform.slug, role: P().role },
        applied: () => w.exists('access', { user: { username } }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'DELETE',
    route: '/user/:username/accesses/:access',
    withRight: { profile: [PV, 'user.view', 'user.manage_access'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      const publicId = await w.access(P().platform, { user: username }, P().role)
      return {
        path: `/user/${username}/accesses/${publicId}`,
        applied: async () => !(await w.exists('access', { publicId })),
      }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'GET',
    route: '/group/:group/accesses',
    withRight: { profile: [PV, 'group.view'] },
    without: { profile: [PV] },
    setup: async () => ({ path: `/group/${P().group}/accesses` }),
    expect: allowed(200, 404),
  },
  {
    method: 'POST',
    route: '/group/:group/accesses',
    withRight: { profile: [PV, 'group.view', 'group.manage_access'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const slug = await w.group(P().platform)
      return {
        path: `/group/${slug}/accesses`,
        form: { platform: P().platform.slug, role: P().role },
        applied: () => w.exists('access', { group: { slug } }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'DELETE',
    route: '/group/:group/accesses/:access',
    withRight: { profile: [PV, 'group.view', 'group.manage_access'] },
    without: { profile: [PV, 'group.view'] },
    setup: async () => {
      const slug = await w.group(P().platform)
      const publicId = await w.access(P().platform, { group: slug }, P().role)
      return {
        path: `/group/${slug}/accesses/${publicId}`,
        applied: async () => !(await w.exists('access', { publicId })),
      }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'GET',
    route: '/platform/:platform/accesses',
    // platform.view is a role flag here: through a group's access, with the profile's manage flag.
    withRight: { profile: ['user.manage_access', 'user.view', 'group.view'], role: [PV], via: 'group' },
    without: { profile: [PV] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/accesses` }),
    expect: allowed(200, 403),
  },

  // metadata definitions: read with platform.view, managed with the profile's metadata.manage
  {
    method: 'GET',
    route: '/platform/:platform/metadata',
    withRight: { profile: [], role: [PV], via: 'group' },
    without: { profile: ['metadata.manage'] },
    setup: async () => ({ path: `/platform/${P().platform.slug}/metadata` }),
    expect: allowed(200, 404),
  },
  {
    method: 'POST',
    route: '/platform/:platform/metadata',
    withRight: { profile: [PV, 'metadata.manage'] },
    without: { profile: [PV] },
    setup: async () => {
      const name = unique('alpha-made-metadata')
      return {
        path: `/platform/${P().platform.slug}/metadata`,
        form: { name, type: 'integer', file_type: 'video,audio', default_value: '3' },
        applied: () => w.exists('metadata', { name }),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'GET',
    route: '/metadata/:metadata',
    withRight: { profile: [PV] },
    without: { profile: ['metadata.manage'] },
    setup: async () => ({ path: `/metadata/${P().metadata}` }),
    expect: allowed(200, 404),
  },
  {
    method: 'PUT',
    route: '/metadata/:metadata',
    withRight: { profile: [PV, 'metadata.manage'] },
    without: { profile: [PV] },
    setup: async () => {
      const slug = await w.metadata(P().platform)
      const name = unique('alpha-renamed')
      return { path: `/metadata/${slug}`, form: { name }, applied: () => w.exists('metadata', { slug, name }) }
    },
    expect: allowed(200, 403),
  },
  {
    method: 'DELETE',
    route: '/metadata/:metadata',
    // platform.view through the user's own access, with the profile's manage flag.
    withRight: { profile: ['metadata.manage'], role: [PV], via: 'user' },
    without: { profile: [PV] },
    setup: async () => {
      const slug = await w.metadata(P().platform)
      return { path: `/metadata/${slug}`, applied: async () => !(await w.exists('metadata', { slug })) }
    },
    expect: allowed(204, 403),
  },

  // Last: the callers refused here act on P itself, which every other row needs.
  {
    method: 'DELETE',
    route: '/platform/:platform',
    withRight: { profile: ['instance.view'] },
    without: { profile: [PV] },
    setup: async (actor) => {
      // Installation administrators delete a platform of their own making; the others try P.
      const fresh = ['admin', 'withRight', 'inactive'].includes(actor)
      const platform = fresh
        ? await createPlatform(app.kernel.services, app.kernel.em(), {
            name: unique('Doomed'),
            maxUsers: 0,
            maxSpace: 0,
          })
        : P().platform
      return {
        path: `/platform/${platform.slug}`,
        applied: async () => !(await w.exists('platform', { id: platform.id })),
      }
    },
    expect: { admin: 204, platformAdmin: 403, withRight: 204, without: 403, otherTenant: 404, inactive: 401 },
  },
  // the file store: every caller acts on their own store (files are private to their owner)
  own({
    method: 'GET',
    route: '/files',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async () => ({ path: '/files' }),
    ok: 200,
  }),
  own({
    method: 'GET',
    route: '/files/:directory',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => ({ path: `/files/${await w.directory(username)}` }),
    ok: 200,
  }),
  nobodysFile('GET', '/files/:directory', async () => ({ path: `/files/${P().directory}` })),
  own({
    method: 'POST',
    route: '/files/:directory',
    withRight: { profile: ['folder.create'] },
    without: { profile: [] },
    target: async (username) => {
      const name = unique('made-directory')
      return {
        path: `/files/${await w.directory(username)}`,
        form: { name },
        applied: () => w.exists('directory', { name }),
      }
    },
    ok: 201,
  }),
  own({
    method: 'PUT',
    route: '/files/:directory',
    withRight: { profile: ['folder.create'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.directory(username)
      const name = unique('renamed-directory')
      return { path: `/files/${slug}`, form: { name }, applied: () => w.exists('directory', { slug, name }) }
    },
    ok: 200,
  }),
  nobodysFile('PUT', '/files/:directory', async () => ({ path: `/files/${P().directory}`, form: { name: 'x' } })),
  own({
    method: 'DELETE',
    route: '/files/:directory',
    withRight: { profile: ['folder.create', 'file.delete'] },
    without: { profile: ['folder.create'] },
    target: async (username) => {
      const slug = await w.directory(username)
      return { path: `/files/${slug}`, applied: async () => !(await w.exists('directory', { slug })) }
    },
    ok: 204,
  }),
  nobodysFile('DELETE', '/files/:directory', async () => ({
    path: `/files/${P().directory}`,
    applied: async () => !(await w.exists('directory', { slug: P().directory })),
  })),
  own({
    method: 'GET',
    route: '/search/directories',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.directory(username)
      return { path: `/search/directories?name=${slug}`, check: (res) => expect(res.body).toContain(`/files/${slug}"`) }
    },
    ok: 200,
  }),
  own({
    method: 'POST',
    route: '/files',
    variant: 'an upload',
    withRight: { profile: ['file.create'] },
    without: { profile: [] },
    target: async () => {
      const name = `${unique('upload')}.pdf`
      const { body, headers } = multipartRequest([{ name: 'path', filename: name, data: Buffer.from('%PDF-1.4 x') }])
      return { path: '/files', body, headers, applied: () => w.exists('file', { name }) }
    },
    ok: 200,
  }),
  own({
    method: 'POST',
    route: '/files',
    variant: 'name only: a directory in the root',
    withRight: { profile: ['folder.create'] },
    without: { profile: ['file.create'] },
    target: async () => {
      const name = unique('root-directory')
      return { path: '/files', form: { name }, applied: () => w.exists('directory', { name, parent: null }) }
    },
    ok: 201,
  }),
  own({
    method: 'POST',
    route: '/files/upload_links',
    withRight: { profile: ['file.create'] },
    without: { profile: [] },
    target: async () => ({
      path: '/files/upload_links',
      check: (res) => expect(res.body).toMatch(/rel="html".*rel="json"|rel="json".*rel="html"/s),
    }),
    ok: 200,
  }),
  own({
    method: 'POST',
    route: '/files/:directory/upload_links',
    withRight: { profile: ['file.create'] },
    without: { profile: [] },
    target: async (username) => ({ path: `/files/${await w.directory(username)}/upload_links` }),
    ok: 200,
  }),
  nobodysFile('POST', '/files/:directory/upload_links', async () => ({ path: `/files/${P().directory}/upload_links` })),
  own({
    method: 'GET',
    route: '/file/:file',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => ({ path: `/file/${await w.file(username)}` }),
    ok: 200,
  }),
  nobodysFile('GET', '/file/:file', async () => ({ path: `/file/${P().file}` })),
  own({
    method: 'GET',
    route: '/file/:file/status',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => ({ path: `/file/${await w.file(username)}/status` }),
    ok: 200,
  }),
  nobodysFile('GET', '/file/:file/status', async () => ({ path: `/file/${P().file}/status` })),
  own({
    method: 'PUT',
    route: '/file/:file',
    withRight: { profile: ['file.edit'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.file(username)
      const name = unique('renamed-file')
      return { path: `/file/${slug}`, form: { name }, applied: () => w.exists('file', { slug, name }) }
    },
    ok: 200,
  }),
  nobodysFile('PUT', '/file/:file', async () => ({ path: `/file/${P().file}`, form: { name: 'x' } })),
  own({
    method: 'DELETE',
    route: '/file/:file',
    withRight: { profile: ['file.delete'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.file(username)
      return { path: `/file/${slug}`, applied: async () => !(await w.exists('file', { slug })) }
    },
    ok: 204,
  }),
  nobodysFile('DELETE', '/file/:file', async () => ({
    path: `/file/${P().file}`,
    applied: async () => !(await w.exists('file', { slug: P().file })),
  })),
  // the media pipeline: snapshots, and media delivery (Digest of the owner, or a media token)
  own({
    method: 'GET',
    route: '/file/:file/snapshots',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => ({
      path: `/file/${await w.mediaFile(username)}/snapshots`,
      check: (res) => expect(res.body).toMatch(/<snapshot id="0" src="[^"]+" selected="true"\/>/),
    }),
    ok: 202,
  }),
  nobodysFile('GET', '/file/:file/snapshots', async () => ({ path: `/file/${P().file}/snapshots` })),
  own({
    method: 'POST',
    route: '/file/:file/snapshots',
    withRight: { profile: ['file.edit'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.mediaFile(username)
      return {
        path: `/file/${slug}/snapshots`,
        form: { id: '1' },
        applied: async () => (await w.selectedSnapshot(slug)) === '1',
      }
    },
    ok: 200,
  }),
  nobodysFile('POST', '/file/:file/snapshots', async () => ({
    path: `/file/${P().file}/snapshots`,
    form: { id: '0' },
  })),
  // the studio: a new file made from a video of the caller and an image of the caller
  own({
    method: 'POST',
    route: '/file/:file/studio/insertlogo',
    withRight: { profile: ['file.create'] },
    without: { profile: [] },
    target: async (username) => {
      const { video, logo } = await w.logoFiles(username)
      const name = `${video} with logo`
      return {
        path: `/file/${video}/studio/insertlogo`,
        form: { logo, logo_left: '0', logo_top: '0', logo_width: '10', logo_height: '10', name },
        applied: () => w.exists('file', { name }),
      }
    },
    ok: 202,
  }),
  nobodysFile('POST', '/file/:file/studio/insertlogo', async () => ({
    path: `/file/${P().file}/studio/insertlogo`,
    form: { logo: P().file, logo_left: '0', logo_top: '0', logo_width: '10', logo_height: '10', name: 'x' },
  })),
  // subtitles: added and removed with file.edit, fetched like the other media of the file
  own({
    method: 'POST',
    route: '/file/:file/subtitles',
    withRight: { profile: ['file.edit'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.file(username)
      const { body, headers } = multipartRequest([
        { name: 'language', value: 'fr' },
        { name: 'subtitle', filename: 'a.srt', data: Buffer.from(`1\n00:00:01,000 --> 00:00:02,000\n${slug}\n`) },
      ])
      return {
        path: `/file/${slug}/subtitles`,
        body,
        headers,
        applied: async () => (await w.em().count('Subtitle', { file: { slug } })) === 1,
      }
    },
    ok: 201,
  }),
  nobodysFile('POST', '/file/:file/subtitles', async () => ({ path: `/file/${P().file}/subtitles` })),
  own({
    method: 'GET',
    route: '/file/:file/subtitles/:subtitle',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => {
      const { file, subtitle } = await w.subtitledFile(username)
      return { path: `/file/${file}/subtitles/${subtitle}`, check: (res) => expect(res.body).toContain('Salut') }
    },
    ok: 200,
  }),
  nobodysFile('GET', '/file/:file/subtitles/:subtitle', async () => ({
    path: `/file/${P().file}/subtitles/${MEDIA.subtitle}`,
  })),
  own({
    method: 'DELETE',
    route: '/file/:file/subtitles/:subtitle',
    withRight: { profile: ['file.edit'] },
    without: { profile: [] },
    target: async (username) => {
      const { file, subtitle } = await w.subtitledFile(username)
      return {
        path: `/file/${file}/subtitles/${subtitle}`,
        applied: async () => !(await w.exists('subtitle', { publicId: subtitle, file: { slug: file } })),
      }
    },
    ok: 204,
  }),
  nobodysFile('DELETE', '/file/:file/subtitles/:subtitle', async () => ({
    path: `/file/${P().file}/subtitles/${MEDIA.subtitle}`,
  })),
  ...mediaRows([
    ['/file/:file/thumbnail/thumb.jpg', 'thumbnail/thumb.jpg'],
    ['/file/:file/snapshots/:snapshot.jpg', 'snapshots/1.jpg'],
    ['/file/:file/flavor/video/:flavor.mp4', 'flavor/video/small.mp4'],
    ['/file/:file/flavor/audio/:track', 'flavor/audio/aac.m4a'],
    ['/file/:file/hls/:entry', 'hls/master.m3u8'],
    ['/file/:file/hls/:variant/:segment', 'hls/v/seg-0.ts'],
  ]),
]

/** Rows of the media routes (by pattern and the path below `/file/<slug>/` of a seeded file): the owner only. */
function mediaRows(routes: [route: string, below: string][]): Row[] {
  return routes.flatMap(([route, below]) => [
    own({
      method: 'GET',
      route,
      withRight: { profile: [] },
      without: { profile: [] },
      target: async (username) => ({ path: `/file/${await w.mediaFile(username)}/${below}` }),
      ok: 200,
    }),
    nobodysFile('GET', route, async () => ({ path: `/file/${P().file}/${below}` })),
  ])
}

const rowName = (row: Row): string => `${row.method} ${row.route}${row.variant ? ` (${row.variant})` : ''}`

async function clientOf(row: Row, actor: Actor): Promise<DigestClient> {
  switch (actor) {
    case 'admin':
      return app.client
    case 'withRight':
      return w.clientWith(row.withRight)
    case 'without':
      return w.clientWith(row.without)
    default:
      return actors[actor]
  }
}

/** Checks an answer's status and the shape every answer of that status has. */
function expectAnswer(res: Response, status: number): void {
  expect(res.status, res.body).toBe(status)
  expect(res.headers['x-api-version']).toBe('2.14.3')
  if (status === 204) {
    expect(res.body).toBe('')
    return
  }
  if (String(res.headers['content-type']).startsWith('application/xml')) {
    const doc = parseXml(res.body)
    if (status >= 400) expect(text((doc.error as XmlObject).status)).toBe(String(status))
  }
  if (status === 401) expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
}

beforeAll(async () => {
  app = await startApp()
  w = await World.create(app)
  actors.platformAdmin = (await w.userAndClient(w.p.platform, w.p.adminProfile)).client
  actors.otherTenant = (await w.userAndClient(w.q.platform, w.q.adminProfile)).client
  const home = await app.kernel.em().findOneOrFail(PlatformEntity, { slug: 'default' })
  actors.inactive = (await w.userAndClient(home, 'instance-admin', { isActive: false })).client
})
afterAll(async () => app?.close())

describe('authorization matrix', () => {
  it('has a row for every route of the route table, and none for a route that does not exist', () => {
    const routes = app.kernel.routes.routes.map((r) => `${r.method} ${r.path}`)
    const rows = new Set(ROWS.map((row) => `${row.method} ${row.route}`))
    expect(
      routes.filter((r) => !rows.has(r)),
      'routes without a matrix row',
    ).toEqual([])
    expect(
      [...rows].filter((r) => !routes.includes(r)),
      'rows of no route',
    ).toEqual([])
    // Public routes answer everyone, anonymous callers included: their rows say so.
    const publics = app.kernel.routes.routes.filter((r) => r.options.public).map((r) => `${r.method} ${r.path}`)
    const open = ROWS.filter((row) => (row.anonymous ?? 401) < 400).map((row) => `${row.method} ${row.route}`)
    expect([...new Set(open)].sort()).toEqual(publics.sort())
  })

  for (const row of ROWS) {
    describe(rowName(row), () => {
      for (const actor of ACTORS) {
        const status = row.expect[actor]
        const issue = row.knownIssues?.[actor]
        const test = issue ? it.fails : it
        test(`${actor} → ${status}${issue ? ` (known issue: ${issue})` : ''}`, async () => {
          const target = await row.setup(actor)
          const path = target.path.split('?')[0]!
          const method = row.as ?? row.method
          expect(app.kernel.routes.match(method, path)?.route.path, 'the path of the row').toBe(row.route)
          const client = await clientOf(row, actor)
          const res = await client.request(method, target.path, {
            form: target.form,
            headers: target.headers,
            body: target.body,
          })
          expectAnswer(res, status)
          if (status < 400) target.check?.(res)
          if (target.applied) expect(await target.applied(), 'the change is made exactly on success').toBe(status < 400)
        })
      }

      const anonymous = row.anonymous ?? 401
      it(`anonymous → ${anonymous}`, async () => {
        const target = await row.setup('admin')
        const res = await rawRequest(app.url + target.path, row.as ?? row.method, {
          headers: target.headers,
          body: target.body,
        })
        expectAnswer(res, anonymous)
        if (target.applied) expect(await target.applied()).toBe(anonymous < 400)
      })
    })
  }
})

/** A route with its parameters filled from a tenant's objects (or made-up names). */
function fill(route: string, values: Record<string, string>): string {
  return route.replace(/:(\w+)/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`no value for :${name} of ${route}: add it to the leak probes`)
    return value
  })
}

/** The values of a tenant for every path parameter of the route table. */
function valuesOf(t: TenantObjects, route: string): Record<string, string> {
  return {
    platform: t.platform.slug,
    username: t.user,
    group: t.group,
    role: t.role,
    profile: t.profile,
    access: route.startsWith('/group/') ? t.groupAccess : t.userAccess,
    metadata: t.metadata,
    directory: t.directory,
    file: t.file,
    ...MEDIA,
  }
}

/** The media names of the media routes: the same for every file (only the file tells objects apart). */
const MEDIA: Record<string, string> = {
  snapshot: '0',
  flavor: 'small',
  track: 'aac.m4a',
  entry: 'master.m3u8',
  variant: 'v',
  segment: 'seg-0.ts',
  subtitle: `${'0'.repeat(40)}.fr.vtt`,
}

const MISSING: Record<string, string> = {
  platform: 'no-such-platform',
  username: 'no-such-user',
  group: 'no-such-group',
  role: 'no-such-role',
  profile: 'no-such-profile',
  access: 'nosuchaccess',
  metadata: 'no-such-metadata',
  directory: 'no-such-directory',
  file: 'no-such-file',
  ...MEDIA,
}

/** A body with the names of the request replaced by the made-up ones (so two answers compare). */
function asIfMissing(body: string, values: Record<string, string>, route: string): string {
  let out = body
  for (const name of route.match(/:(\w+)/g) ?? []) out = out.replaceAll(values[name.slice(1)]!, MISSING[name.slice(1)]!)
  return out
}

/** The names of P found in a body (the names the request itself sent taken out first). */
function leaked(body: string, names: string[], sent: string[] = []): string[] {
  let rest = body
  for (const value of sent) rest = rest.replaceAll(value, '')
  return names.filter((name) => rest.includes(name))
}

/** The number of items of a list answer (the children of its root element). */
function itemCount(body: string): number {
  const doc = parseXml(body)
  const root = doc[Object.keys(doc).find((k) => k !== '?xml')!] as XmlObject | string
  if (typeof root !== 'object') return 0
  const keys = Object.keys(root).filter((k) => !k.startsWith('@'))
  expect(keys.length, body).toBeLessThanOrEqual(1)
  return keys.length === 0 ? 0 : list(root[keys[0]!]).length
}

const RANGES: (string | undefined)[] = [undefined, 'entities=0-0', 'entities=0-', 'entities=1-1']

describe('no cross-tenant leak', () => {
  let namesOfP: string[]
  /** GET routes that answer a list (Accept-Ranges), found by asking them as the installation administrator. */
  let lists: string[]
  /** A user of P who holds nothing: P's objects do not exist for them either. */
  let nobody: DigestClient

  beforeAll(async () => {
    namesOfP = await w.namesOf(P().platform)
    nobody = await w.clientWith({ profile: [] })
    lists = []
    for (const route of app.kernel.routes.routes) {
      if (route.method !== 'GET' || route.options.public) continue
      const res = await app.client.get(fill(route.path, valuesOf(P(), route.path)), {
        headers: { range: 'entities=0-0' },
      })
      if (res.headers['accept-ranges'] === 'entities') lists.push(route.path)
    }
  })

  it('finds the lists of the route table, each non-empty on P', async () => {
    expect(lists).toEqual(
      expect.arrayContaining([
        '/platforms',
        '/platform/:platform/users',
        '/platform/:platform/groups',
        '/group/:group/users',
        '/platform/:platform/roles',
        '/platform/:platform/profiles',
        '/user/:username/accesses',
        '/group/:group/accesses',
        '/platform/:platform/accesses',
        '/platform/:platform/metadata',
      ]),
    )
    for (const route of lists) {
      const res = await app.client.get(fill(route, valuesOf(P(), route)))
      expect(itemCount(res.body), route).toBeGreaterThan(0)
    }
    expect(namesOfP.length).toBeGreaterThan(20)
  })

  it("every list of P answers the other tenant's administrator 403/404, with or without Range, naming nothing of P", async () => {
    for (const route of lists) {
      const values = valuesOf(P(), route)
      const sent = (route.match(/:(\w+)/g) ?? []).map((name) => values[name.slice(1)]!)
      for (const range of RANGES) {
        const headers: Record<string, string> = range ? { range } : {}
        const res = await actors.otherTenant.get(fill(route, values), { headers })
        const where = `${route} ${range ?? ''}: ${res.body}`
        expect([403, 404], where).toContain(res.status)
        expect(res.headers['content-range'], where).toBeUndefined()
        expect(res.headers['accept-ranges'], where).toBeUndefined()
        expect(leaked(res.body, namesOfP, sent), where).toEqual([])
        if (route.includes(':')) {
          // Exactly the answer for objects that do not exist.
          const missing = await actors.otherTenant.get(fill(route, MISSING), { headers })
          expect(res.status, where).toBe(missing.status)
          expect(asIfMissing(res.body, values, route), where).toBe(missing.body)
        }
      }
    }
  })

  it("the other tenant's own lists and root show nothing of P, and their totals count only what they show", async () => {
    const own = lists.filter((route) => route.includes(':'))
    expect(own.length).toBeGreaterThan(0)
    for (const route of own) {
      const path = fill(route, valuesOf(w.q, route))
      const full = await actors.otherTenant.get(path)
      expect(full.status, `${route}: ${full.body}`).toBe(200)
      expect(leaked(full.body, namesOfP), route).toEqual([])
      const count = itemCount(full.body)
      expect(full.headers['content-range'], route).toBe(
        count === 0 ? 'entities */0' : `entities 0-${count - 1}/${count}`,
      )
      for (const range of RANGES.slice(1)) {
        const res = await actors.otherTenant.get(path, { headers: { range: range! } })
        const where = `${route} ${range}: ${res.body}`
        expect(leaked(res.body, namesOfP), where).toEqual([])
        expect(String(res.headers['content-range'] ?? ''), where).toMatch(new RegExp(`/${count}$`))
        if (res.status === 416) expect(res.headers['content-range'], where).toBe(`entities */${count}`)
        else expect(res.status, where).toBe(200)
      }
    }
    const root = await actors.otherTenant.get('/')
    expect(root.status).toBe(200)
    expect(leaked(root.body, namesOfP)).toEqual([])
  })

  it('every route addressing an object of P answers the other tenant, and a user of P holding nothing, exactly as for a missing object', async () => {
    for (const route of app.kernel.routes.routes) {
      if (route.options.public || !route.path.includes(':')) continue
      const values = valuesOf(P(), route.path)
      for (const [who, client] of [
        ['otherTenant', actors.otherTenant],
        ['nobody of P', nobody],
      ] as const) {
        const res = await client.request(route.method, fill(route.path, values))
        const missing = await client.request(route.method, fill(route.path, MISSING))
        const where = `${who}: ${route.method} ${route.path}: ${res.body}`
        expect(res.status, where).toBe(404)
        expect(asIfMissing(res.body, values, route.path), where).toBe(missing.body)
      }
    }
  })

  it("fields naming P's objects in requests on Q answer exactly as for names that exist nowhere", async () => {
    const q = w.q
    const p = P()
    const newUser = unique('beta-new')
    const cases: {
      method: 'POST' | 'PUT' | 'DELETE'
      /** Which of P's names the request carries. */
      names: 'username' | 'role' | 'profile'
      path: (name: string) => string
      form?: (name: string) => Record<string, string>
    }[] = [
      // A user of P cannot join Q's group, and is no member of it.
      {
        method: 'POST',
        names: 'username',
        path: () => `/group/${q.group}/users`,
        form: (name) => ({ username: name }),
      },
      { method: 'DELETE', names: 'username', path: (name) => `/group/${q.group}/user/${name}` },
      // P's role, granted to Q's user and group.
      {
        method: 'POST',
        names: 'role',
        path: () => `/user/${q.user}/accesses`,
        form: (name) => ({ platform: q.platform.slug, role: name }),
      },
      {
        method: 'POST',
        names: 'role',
        path: () => `/group/${q.group}/accesses`,
        form: (name) => ({ platform: q.platform.slug, role: name }),
      },
      // P's profile, given to a user of Q.
      { method: 'PUT', names: 'profile', path: () => `/user/${q.user}`, form: (name) => ({ profile: name }) },
      {
        method: 'POST',
        names: 'profile',
        path: () => `/platform/${q.platform.slug}/users`,
        form: (name) => ({ username: newUser, email: `${newUser}@example.org`, password: PASSWORD, profile: name }),
      },
    ]
    const real = { username: p.user, role: p.role, profile: p.profile }
    for (const c of cases) {
      const name = real[c.names]
      const fake = MISSING[c.names]!
      const res = await actors.otherTenant.request(c.method, c.path(name), { form: c.form?.(name) })
      const missing = await actors.otherTenant.request(c.method, c.path(fake), { form: c.form?.(fake) })
      const where = `${c.method} ${c.path(name)} (${c.names} ${name}): ${res.body}`
      expect(res.status, where).toBeGreaterThanOrEqual(400)
      expect(res.status, where).toBe(missing.status)
      expect(res.body.replaceAll(name, fake), where).toBe(missing.body)
    }
    // The other direction: Q's access ids on P's subjects, from P's administrator.
    const res = await actors.platformAdmin.delete(`/user/${p.user}/accesses/${q.userAccess}`)
    const missing = await actors.platformAdmin.delete(`/user/${p.user}/accesses/${MISSING.access}`)
    expect(res.status).toBe(404)
    expect(res.body.replaceAll(q.userAccess, MISSING.access!)).toBe(missing.body)
  })
})

describe('grants never cross platforms, whatever access rows say', () => {
  /** Whether a user of `platform` holding nothing but `rows` sees P. */
  async function seesP(platform: 'p' | 'q', rows: (username: string) => Promise<void>): Promise<number> {
    const tenant = platform === 'p' ? P() : w.q
    const { username, client } = await w.userAndClient(tenant.platform, tenant.profile)
    await rows(username)
    return (await client.get(`/platform/${P().platform.slug}`)).status
  }

  it('control: an access of P granting platform.view makes P visible', async () => {
    expect(await seesP('p', (u) => w.access(P().platform, { user: u }, P().role).then(() => undefined))).toBe(200)
  })

  it("a user of Q with an access row on P (P's role, filed under P or under Q) sees nothing", async () => {
    expect(await seesP('q', (u) => w.access(P().platform, { user: u }, P().role).then(() => undefined))).toBe(404)
    expect(
      await seesP('q', (u) => w.access(w.q.platform, { user: u }, P().role, P().platform).then(() => undefined)),
    ).toBe(404)
    expect(
      await seesP('q', (u) => w.access(w.q.platform, { user: u }, w.q.role, P().platform).then(() => undefined)),
    ).toBe(404)
  })

  it("a user of P gains nothing from Q's role, nor from a group of Q they were put in", async () => {
    expect(await seesP('p', (u) => w.access(P().platform, { user: u }, w.q.role).then(() => undefined))).toBe(404)
    expect(
      await seesP('p', async (u) => {
        const group = await w.group(w.q.platform, [u])
        await w.access(P().platform, { group }, P().role)
      }),
    ).toBe(404)
  })
})

describe('oneself: a user of P whose profile holds nothing', () => {
  let me: string
  let client: DigestClient

  beforeAll(async () => {
    ;({ username: me, client } = await w.userAndClient(P().platform, P().profile))
  })

  const cases: {
    what: string
    method: Row['method']
    path: () => string
    form?: () => Record<string, string>
    status: number
  }[] = [
    { what: 'reads their record', method: 'GET', path: () => `/user/${me}`, status: 200 },
    { what: 'lists their accesses', method: 'GET', path: () => `/user/${me}/accesses`, status: 200 },
    {
      what: 'checks their own password',
      method: 'GET',
      path: () => `/user/${me}/authenticate?cipher=${w.cipher()}`,
      status: 302,
    },
    {
      what: 'updates their personal fields',
      method: 'PUT',
      path: () => `/user/${me}`,
      form: () => ({ city: 'Lyon' }),
      status: 200,
    },
    {
      what: 'may not activate or deactivate themselves',
      method: 'PUT',
      path: () => `/user/${me}`,
      form: () => ({ is_active: '0' }),
      status: 403,
    },
    {
      what: 'may not change their profile',
      method: 'PUT',
      path: () => `/user/${me}`,
      form: () => ({ profile: P().adminProfile }),
      status: 403,
    },
    {
      what: 'may not grant themselves an access',
      method: 'POST',
      path: () => `/user/${me}/accesses`,
      form: () => ({ platform: P().platform.slug, role: P().role }),
      status: 403,
    },
    { what: 'does not see their platform', method: 'GET', path: () => `/platform/${P().platform.slug}`, status: 404 },
    { what: 'may not delete themselves', method: 'DELETE', path: () => `/user/${me}`, status: 412 },
  ]
  for (const c of cases) {
    it(`${c.what}: ${c.method} → ${c.status}`, async () => {
      const res = await client.request(c.method, c.path(), { form: c.form?.() })
      expectAnswer(res, c.status)
    })
  }
})

/**
 * docs/authorization.md: users are visible only with platform.view and the profile's
 * user.view. Lists that name users (group members, the accesses of an object) therefore need
 * user.view too; a caller for whom `GET /user/<username>` answers 404 gets 403 from them.
 */
describe('lists that name users need user.view', () => {
  it('GET /user/<member> answers 404 to a caller holding platform.view and group.view only', async () => {
    const client = await w.clientWith({ profile: [PV, 'group.view'] })
    expect((await client.get(`/user/${P().user}`)).status).toBe(404)
  })

  it('GET /group/<group>/users answers them 403, without the members', async () => {
    const client = await w.clientWith({ profile: [PV, 'group.view'] })
    const res = await client.get(`/group/${P().group}/users`)
    expect(res.status).toBe(403)
    expect(res.body).not.toContain(P().user)
  })

  it('GET /platform/<platform>/accesses answers 403 to group.manage_access without user.view', async () => {
    const client = await w.clientWith({ profile: [PV, 'group.manage_access'] })
    expect((await client.get(`/user/${P().user}`)).status).toBe(404)
    const res = await client.get(`/platform/${P().platform.slug}/accesses`)
    expect(res.status).toBe(403)
    expect(res.body).not.toContain(P().user)
  })
})

/** The token of a fresh upload link of the installation administrator, into their root. */
async function uploadToken(): Promise<string> {
  const res = await app.client.post('/files/upload_links')
  return /rel="json" href="[^"]*\?token=([^"]+)"/.exec(res.body)![1]!
}

/**
 * The endpoints behind upload links: public, the token is the credential, so every caller
 * (anonymous, inactive or with Digest credentials of anybody) gets the same answer.
 */
function uploadEndpointRows(): Row[] {
  const everyone = { admin: 200, platformAdmin: 200, withRight: 200, without: 200, otherTenant: 200, inactive: 200 }
  const nothing = { profile: [] }
  const upload = (route: string, check: (res: Response, name: string) => void): Row => ({
    method: 'POST',
    route,
    withRight: nothing,
    without: nothing,
    setup: async () => {
      const name = `${unique('linked')}.pdf`
      const { body, headers } = multipartRequest([
        { name: 'file[path]', filename: name, data: Buffer.from('%PDF-1.4 x') },
      ])
      return {
        path: `${route}?token=${await uploadToken()}`,
        body,
        headers,
        applied: () => w.exists('file', { name }),
        check: (res) => check(res, name),
      }
    },
    expect: everyone,
    anonymous: 200,
  })
  const page = (route: string, check: (res: Response) => void, withToken = false): Row => ({
    method: 'GET',
    route,
    withRight: nothing,
    without: nothing,
    setup: async () => ({ path: withToken ? `${route}?token=${await uploadToken()}` : route, check }),
    expect: everyone,
    anonymous: 200,
  })
  const tusHeaders = (length: number): Record<string, string> => ({
    'tus-resumable': '1.0.0',
    'upload-length': String(length),
    'upload-metadata': `filename ${Buffer.from(`${unique('tus')}.pdf`).toString('base64')}`,
  })
  return [
    upload('/upload/json', (res, name) => expect(JSON.parse(res.body)).toMatchObject({ result: { name } })),
    upload('/upload/html', (res, name) => expect(res.body).toContain(`>${name}</a>`)),
    page('/upload/html', (res) => expect(res.body).toContain('<form id="upload"'), true),
    page('/upload/assets/flow.min.js', (res) => expect(res.body).toContain('Flow')),
    page('/upload/assets/upload-page.js', (res) => expect(res.body).toContain('new Flow(')),
    {
      method: 'ALL',
      as: 'POST',
      route: '/upload/tus',
      variant: 'creation',
      withRight: nothing,
      without: nothing,
      setup: async () => ({ path: `/upload/tus?token=${await uploadToken()}`, headers: tusHeaders(10) }),
      expect: { admin: 201, platformAdmin: 201, withRight: 201, without: 201, otherTenant: 201, inactive: 201 },
      anonymous: 201,
    },
    {
      method: 'ALL',
      as: 'HEAD',
      route: '/upload/tus/:id',
      variant: 'offset',
      withRight: nothing,
      without: nothing,
      setup: async () => {
        const token = await uploadToken()
        const created = await rawRequest(`${app.url}/upload/tus?token=${token}`, 'POST', { headers: tusHeaders(10) })
        const location = new URL(String(created.headers.location))
        return {
          path: `${location.pathname}${location.search}`,
          headers: { 'tus-resumable': '1.0.0' },
          check: (res) => expect(res.headers['upload-offset']).toBe('0'),
        }
      },
      expect: everyone,
      anonymous: 200,
    },
  ]
}
