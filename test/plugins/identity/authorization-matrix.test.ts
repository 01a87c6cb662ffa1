import { tokensWith } from '../../../src/kernel/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlatformEntity, createPlatform } from '../../../plugins/platforms/index.js'
import { FEED_CHANNEL_TYPE } from '../../../plugins/channels/index.js'
import { viewToken } from '../../../plugins/player/index.js'
import { PlayerAssets } from '../../../plugins/player/player-assets.js'
import { ResourceEntity } from '../../../plugins/resources/index.js'
import { PORTAL_STYLE_FILE } from '../../../plugins/portal/index.js'
import { peekRecorderCode, recorderScript } from '../../../plugins/recorder/index.js'
import { consoleScripts } from '../../../plugins/console/console-page.routes.js'
import { SECTIONS } from '../../../plugins/console/console.pages.js'
import { SignInLinkEntity } from '../../../plugins/console/console.entities.js'
import { UserEntity } from '../../../plugins/identity/index.js'
import { StoredFileEntity, encodingCode } from '../../../plugins/files/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import {
  ACTORS,
  type Actor,
  type Grant,
  PASSWORD,
  type PlayerKind,
  type Publishing,
  SUBTITLE,
  type TenantObjects,
  HOOK_URL,
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
  check?: (res: Response) => void | Promise<void>
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
   * The row's credential is a media token in the query (`?token=`): the kernel checks it
   * instead of Digest credentials, so anonymous callers may get in though the route is not public.
   */
  token?: boolean
  /**
   * Cells where the implementation differs from the documented model: `expect` holds the
   * documented status and the cell runs as `it.fails`, with the reason (see the report).
   */
  knownIssues?: Partial<Record<Actor | 'anonymous', string>>
}

const PV = 'platform.view'

/** Role flags through a group's access on P (what most rows on P's publishing objects need). */
const roles = (...flags: string[]): Grant => ({ profile: [], role: flags, via: 'group' })

/** The common shape: the three allowed callers get `ok`, the one without `refused`, the other tenant 404. */
const allowed = (ok: number, refused: number): Record<Actor, number> => ({
  admin: ok,
  platformAdmin: ok,
  withRight: ok,
  without: refused,
  otherTenant: 404,
  inactive: 401,
})

/** Every caller gets `status` (public routes, media tokens). */
const everyone = (status: number): Record<Actor, number> =>
  Object.fromEntries(ACTORS.map((actor) => [actor, status])) as Record<Actor, number>

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
    method: 'POST',
    route: '/user/:username/api_key',
    withRight: { profile: [PV, 'user.view', 'user.edit'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      const { ha1 } = await w.em().findOneOrFail(UserEntity, { username })
      return {
        path: `/user/${username}/api_key`,
        applied: async () => !(await w.exists('user', { username, ha1 })),
        check: (res) => expect(text(parseXml(res.body).api_key.key)).toMatch(/^[A-Za-z0-9]{40}$/),
      }
    },
    expect: allowed(201, 403),
  },
  {
    method: 'POST',
    route: '/user/:username/sign_in_link',
    withRight: { profile: [PV, 'user.view', 'user.edit'] },
    without: { profile: [PV, 'user.view'] },
    setup: async () => {
      const username = await freshUser()
      return {
        path: `/user/${username}/sign_in_link`,
        applied: async () => (await w.em().count(SignInLinkEntity, { user: { username } })) > 0,
        check: (res) => expect(text(parseXml(res.body).sign_in_link.url)).toMatch(/\/console\/link\/[A-Za-z0-9]{43}$/),
      }
    },
    expect: allowed(201, 403),
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
    route: '/health',
    withRight: { profile: [] },
    without: { profile: [] },
    setup: async () => ({ path: '/health', check: (res) => expect(JSON.parse(res.body)).toEqual({ status: 'ok' }) }),
    expect: { admin: 200, platformAdmin: 200, withRight: 200, without: 200, otherTenant: 200, inactive: 200 },
    anonymous: 200,
  },
  {
    method: 'GET',
    route: '/ready',
    withRight: { profile: [] },
    without: { profile: [] },
    setup: async () => ({
      path: '/ready',
      check: (res) => expect(JSON.parse(res.body)).toMatchObject({ status: 'ready' }),
    }),
    expect: { admin: 200, platformAdmin: 200, withRight: 200, without: 200, otherTenant: 200, inactive: 200 },
    anonymous: 200,
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
        ? await createPlatform(app.kernel.emit, app.kernel.em(), {
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
    method: 'GET',
    route: '/search/files',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.file(username)
      return { path: `/search/files?name=${slug}`, check: (res) => expect(res.body).toContain(`/file/${slug}"`) }
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
    method: 'GET',
    route: '/file/:file/renditions',
    withRight: { profile: [] },
    without: { profile: [] },
    target: async (username) => ({
      path: `/file/${await w.mediaFile(username)}/renditions`,
      check: (res) => expect(res.body).toMatch(/<renditions href="[^"]+"><source src="[^"]+\/source"/),
    }),
    ok: 200,
  }),
  nobodysFile('GET', '/file/:file/renditions', async () => ({ path: `/file/${P().file}/renditions` })),
  own({
    method: 'POST',
    route: '/file/:file/encoding',
    withRight: { profile: ['file.edit'] },
    without: { profile: [] },
    target: async (username) => {
      const slug = await w.mediaFile(username)
      // Encoded already: encoding it again is what the route is for (one still to come is a 412).
      await app.kernel.em().nativeUpdate(StoredFileEntity, { slug }, { encodingStatus: encodingCode('finished') })
      return {
        path: `/file/${slug}/encoding`,
        check: (res) => expect(res.body).toContain('<encoding_status><![CDATA[waiting]]></encoding_status>'),
      }
    },
    ok: 202,
  }),
  nobodysFile('POST', '/file/:file/encoding', async () => ({ path: `/file/${P().file}/encoding` })),
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
    ['/file/:file/source', 'source'],
  ]),
  ...mediaObjectRows(),
  ...streamRows(),
  ...resourceRows(),
  ...resourceMediaRows([
    ['/resource/:resource/thumbnail/thumb.jpg', 'thumbnail/thumb.jpg', 'data'],
    ['/resource/:resource/snapshots/:snapshot.jpg', 'snapshots/1.jpg', 'data'],
    ['/resource/:resource/flavor/video/:flavor.mp4', 'flavor/video/small.mp4', 'data'],
    ['/resource/:resource/flavor/audio/:track', 'flavor/audio/aac.m4a', 'data'],
    ['/resource/:resource/hls/:entry', 'hls/master.m3u8', '#EXTM3U'],
    ['/resource/:resource/hls/:variant/:segment', 'hls/v/seg-0.ts', 'data'],
    ['/resource/:resource/subtitles/:subtitle', `subtitles/${SUBTITLE}`, 'Salut'],
    ['/resource/:resource/source', 'source', '%PDF-1.4'],
  ]),
  ...accessesOnPublishingRows(),
  ...channelRows(),
  ...playerRows('player_theme', 'theme', { profile: [PV] }),
  ...playerRows('player_behavior', 'behavior', roles(PV)),
  ...widgetRows(),
  ...recorderRows(),
  ...recorderPageRows(),
  ...consoleRows(),
  ...feedRows(),
  ...portalRows(),
  ...playerPageRows(),
  ...webhookRows(),
  ...jobRows(),
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

/** Whether an XML answer holds the element `<name>value</name>` (the value as text or CDATA). */
const hasElement = (body: string, name: string, value: string): boolean =>
  body.includes(`<${name}>${value}</${name}>`) || body.includes(`<${name}><![CDATA[${value}]]></${name}>`)

/** Checks that an answer holds `<name>value</name>`. */
const expectElement = (res: Response, name: string, value: string): void =>
  expect(hasElement(res.body, name, value), `<${name}>${value}</${name}> in ${res.body}`).toBe(true)

/** Checks that a list or info answer names the object with this slug. */
const showsSlug = (res: Response, slug: string): void => expectElement(res, 'slug', slug)

/**
 * A list every caller of P may read, showing `item` to the callers allowed to see it
 * (administrators and withRight) and not to `without`: lists name only what the caller may see.
 */
function filteredList(
  row: Pick<Row, 'route' | 'variant' | 'withRight' | 'without'> & {
    path: () => string
    item: () => string
    /** Shown to every caller of P (the visible object beside a hidden `item`). */
    shared?: () => string
  },
): Row {
  const { path, item, shared, ...rest } = row
  return {
    method: 'GET',
    ...rest,
    setup: async (actor) => ({
      path: path(),
      check: (res) => {
        if (shared) showsSlug(res, shared())
        if (actor === 'without') expect(hasElement(res.body, 'slug', item()), res.body).toBe(false)
        else showsSlug(res, item())
      },
    }),
    expect: { ...allowed(200, 404), without: 200 },
  }
}

/** A GET on P whose answer names the object `slug`: the caller must see it (404 otherwise). */
function readRow(
  row: Pick<Row, 'route' | 'variant' | 'withRight' | 'without'> & { path: () => string; slug: () => string },
): Row {
  const { path, slug, ...rest } = row
  return {
    method: 'GET',
    ...rest,
    setup: async () => ({ path: path(), check: (res) => showsSlug(res, slug()) }),
    expect: allowed(200, 404),
  }
}

/** `GET /<kind>/<slug>` of an object of P (default P's own of that kind): <kind>.view on it, 404 otherwise. */
function infoRow(kind: Publishing, row: Pick<Row, 'variant' | 'withRight' | 'without'> & { slug?: () => string }): Row {
  const { slug = () => P()[kind], ...grants } = row
  return readRow({ route: `/${kind}/:${kind}`, path: () => `/${kind}/${slug()}`, slug, ...grants })
}

/**
 * PUT and DELETE on a fresh object of P per caller: `<kind>.edit` (`<kind>.delete`) on it,
 * 403 to a caller who sees it without that flag. PUT changes `field` and answers `edited`.
 */
function changeRows(kind: Publishing, fresh: () => Promise<string>, field: 'name' | 'title', edited: number): Row[] {
  const view = `${kind}.view`
  return [
    {
      method: 'PUT',
      route: `/${kind}/:${kind}`,
      withRight: roles(view, `${kind}.edit`),
      without: roles(view),
      setup: async () => {
        const slug = await fresh()
        const value = unique(`${P().prefix}-renamed`)
        return {
          path: `/${kind}/${slug}`,
          form: { [field]: value },
          applied: () => w.exists(kind, { slug, [field]: value }),
          check: (res) => expectElement(res, field, value),
        }
      },
      expect: allowed(edited, 403),
    },
    {
      method: 'DELETE',
      route: `/${kind}/:${kind}`,
      withRight: roles(view, `${kind}.delete`),
      without: roles(view),
      setup: async () => {
        const slug = await fresh()
        return { path: `/${kind}/${slug}`, applied: async () => !(await w.exists(kind, { slug })) }
      },
      expect: allowed(204, 403),
    },
  ]
}

/**
 * `GET /<kind>/<slug>/accesses` of P's object: <kind>.view on it, then (403 otherwise) a
 * profile manage flag, or <kind>.manage_access on it where the model has that flag (media,
 * stream), and user.view and group.view. A hidden stream or resource is seen as for its info.
 */
function objectAccessesRows(kind: Publishing): Row[] {
  const view = `${kind}.view`
  const names = ['user.view', 'group.view']
  const manager = (...flags: string[]): Grant => ({ profile: [...names, 'group.manage_access'], role: flags })
  const row = (variant: string, withRight: Grant, without: Grant, hidden?: () => string): Row => ({
    method: 'GET',
    route: `/${kind}/:${kind}/accesses`,
    variant,
    withRight,
    without,
    setup: async () => ({
      path: `/${kind}/${hidden?.() ?? P()[kind]}/accesses`,
      check: (res) => (hidden ? undefined : expect(res.body).toContain(`/user/${P().user}"`)),
    }),
    expect: allowed(200, hidden ? 404 : 403),
  })
  const rows = [row('profile group.manage_access', manager(view), { profile: names, role: [view] })]
  if (kind !== 'resource') {
    rows.push(
      row(
        `${kind}.manage_access on the ${kind}`,
        { profile: names, role: [view, `${kind}.manage_access`], via: 'user', on: kind },
        { profile: names, role: [view], via: 'user', on: kind },
      ),
    )
  }
  if (kind !== 'media') {
    const hidden = kind === 'stream' ? () => P().hiddenStream : () => P().hiddenResource
    rows.push(
      row(`a hidden ${kind}: ${kind}.view_protected`, manager(view, `${kind}.view_protected`), manager(view), hidden),
    )
  }
  return rows
}

/** Media: seen with media.view, created with media.create on the platform (404 without platform.view). */
function mediaObjectRows(): Row[] {
  const create = (variant: string, without: Grant, refused: 403 | 404): Row => ({
    method: 'POST',
    route: '/platform/:platform/medias',
    variant,
    withRight: roles(PV, 'media.create'),
    without,
    setup: async () => {
      const name = unique('alpha-made-media')
      return {
        path: `/platform/${P().platform.slug}/medias`,
        form: { name, domain_name: `${name}.example.org`, contact_email: `${name}@example.org` },
        applied: () => w.exists('media', { name }),
        check: (res) => expectElement(res, 'domain_name', `${name}.example.org`),
      }
    },
    expect: allowed(201, refused),
  })
  return [
    readRow({
      route: '/platform/:platform/medias',
      withRight: roles(PV, 'media.view'),
      without: { profile: [] },
      path: () => `/platform/${P().platform.slug}/medias`,
      slug: () => P().media,
    }),
    filteredList({
      route: '/platform/:platform/medias',
      variant: 'media.view granted on the media only',
      withRight: { profile: [PV], role: ['media.view'], via: 'user', on: 'media' },
      without: { profile: [PV] },
      path: () => `/platform/${P().platform.slug}/medias`,
      item: () => P().media,
    }),
    create('without media.create', { profile: [PV] }, 403),
    create('without platform.view', roles('media.create'), 404),
    infoRow('media', { withRight: roles('media.view'), without: { profile: [PV] } }),
    infoRow('media', {
      variant: 'media.view granted on the media itself',
      withRight: { profile: [], role: ['media.view'], via: 'user', on: 'media' },
      without: { profile: [PV], role: ['stream.view'], via: 'user', on: 'media' },
    }),
    ...changeRows('media', () => w.media(P().platform), 'name', 201),
    ...objectAccessesRows('media'),
  ]
}

/** Streams: seen with stream.view (and stream.view_protected when hidden or draft), created with stream.create. */
function streamRows(): Row[] {
  const create = (variant: string, withRight: Grant, without: Grant, parent?: () => string): Row => ({
    method: 'POST',
    route: '/media/:media/streams',
    variant,
    withRight,
    without,
    setup: async () => {
      const title = unique('alpha-made-stream')
      const parentStream = parent?.()
      return {
        path: `/media/${P().media}/streams`,
        form: { title, visibility: 'visible', ...(parentStream ? { parent_stream: parentStream } : {}) },
        applied: () => w.exists('stream', { title, parent: parentStream ? { slug: parentStream } : null }),
        check: (res) => expectElement(res, 'title', title),
      }
    },
    expect: allowed(201, 403),
  })
  return [
    readRow({
      route: '/media/:media/streams',
      withRight: roles('media.view', 'stream.view'),
      without: { profile: [PV] },
      path: () => `/media/${P().media}/streams`,
      slug: () => P().stream,
    }),
    filteredList({
      route: '/media/:media/streams',
      variant: 'a hidden stream: stream.view_protected',
      withRight: roles('media.view', 'stream.view', 'stream.view_protected'),
      without: roles('media.view', 'stream.view'),
      path: () => `/media/${P().media}/streams`,
      item: () => P().hiddenStream,
      shared: () => P().stream,
    }),
    create('at the top', roles('media.view', 'stream.create'), roles('media.view')),
    create(
      'in a parent stream',
      roles('media.view', 'stream.view', 'stream.create'),
      roles('media.view', 'stream.view'),
      () => P().stream,
    ),
    infoRow('stream', { withRight: roles('stream.view'), without: roles('media.view') }),
    infoRow('stream', {
      variant: 'a hidden stream: stream.view_protected',
      withRight: roles('stream.view', 'stream.view_protected'),
      without: roles('stream.view'),
      slug: () => P().hiddenStream,
    }),
    ...changeRows('stream', () => w.stream(P().media), 'title', 201),
    {
      method: 'PUT',
      route: '/stream/:stream',
      variant: 'moving it below a stream: stream.create there',
      withRight: roles('stream.view', 'stream.edit', 'stream.create'),
      without: roles('stream.view', 'stream.edit'),
      setup: async () => {
        const slug = await w.stream(P().media)
        return {
          path: `/stream/${slug}`,
          form: { parent_stream: P().stream },
          applied: () => w.exists('stream', { slug, parent: { slug: P().stream } }),
        }
      },
      expect: allowed(201, 403),
    },
    ...objectAccessesRows('stream'),
  ]
}

/**
 * Resources: seen with resource.view (and resource.view_protected unless public); published
 * from the caller's own file with resource.create on the stream and the profile's
 * file.publish_<type> (the fixtures' files are documents).
 */
function resourceRows(): Row[] {
  const publisher: Grant = { profile: ['file.publish_document'], role: ['stream.view', 'resource.create'] }
  const publish = (variant: string, without: Grant, file: (username: string) => Promise<string>, ok: number): Row => ({
    method: 'POST',
    route: '/stream/:stream/resources',
    variant,
    withRight: publisher,
    without,
    setup: async (actor) => {
      const slug = await file(await usernameOf(actor, publisher, without))
      const title = unique('alpha-published')
      return {
        path: `/stream/${P().stream}/resources`,
        form: { file: slug, title, visibility: 'visible' },
        applied: () => w.exists('resource', { title }),
        check: (res) => expect(res.body).toContain(`/file/${slug}"`),
      }
    },
    expect: allowed(ok, 403),
  })
  return [
    readRow({
      route: '/stream/:stream/resources',
      withRight: roles('stream.view', 'resource.view'),
      without: roles('media.view'),
      path: () => `/stream/${P().stream}/resources`,
      slug: () => P().resource,
    }),
    filteredList({
      route: '/stream/:stream/resources',
      variant: 'a hidden resource: resource.view_protected',
      withRight: roles('stream.view', 'resource.view', 'resource.view_protected'),
      without: roles('stream.view', 'resource.view'),
      path: () => `/stream/${P().stream}/resources`,
      item: () => P().hiddenResource,
      shared: () => P().resource,
    }),
    filteredList({
      route: '/stream/:stream/resources',
      variant: 'in a hidden stream: resource.view_protected',
      withRight: roles('stream.view', 'stream.view_protected', 'resource.view', 'resource.view_protected'),
      without: roles('stream.view', 'stream.view_protected', 'resource.view'),
      path: () => `/stream/${P().hiddenStream}/resources`,
      item: () => P().resourceInHiddenStream,
    }),
    publish('their own file', { ...publisher, role: ['stream.view'] }, (username) => w.file(username), 201),
    publish('without file.publish_document', { ...publisher, profile: [] }, (username) => w.file(username), 201),
    publish("another user's file", { ...publisher, role: ['stream.view'] }, async () => P().file, 412),
    infoRow('resource', { withRight: roles('resource.view'), without: roles('stream.view') }),
    infoRow('resource', {
      variant: 'a hidden resource: resource.view_protected',
      withRight: roles('resource.view', 'resource.view_protected'),
      without: roles('resource.view'),
      slug: () => P().hiddenResource,
    }),
    infoRow('resource', {
      variant: 'in a hidden stream: resource.view_protected',
      withRight: roles('resource.view', 'resource.view_protected'),
      without: roles('resource.view', 'stream.view', 'stream.view_protected'),
      slug: () => P().resourceInHiddenStream,
    }),
    infoRow('resource', {
      variant: 'resource.view granted on the media',
      withRight: { profile: [], role: ['resource.view'], via: 'user', on: 'media' },
      without: { profile: [], role: ['media.view', 'stream.view'], via: 'user', on: 'media' },
    }),
    ...changeRows('resource', () => w.resource(P().stream, P().file), 'title', 200),
    ...objectAccessesRows('resource'),
  ]
}

/**
 * The media of a resource (by route, the path below `/resource/<slug>/` and a piece of the
 * bytes, P's resource publishing a file with media): whoever may view the resource (Digest),
 * or anyone with a media token of the resource (every caller, anonymous and inactive ones too).
 * P's resource is published (visible, in a visible stream, online channels): its media but the
 * uploaded original are public assets, served to anonymous callers too (resources.public_assets).
 */
function resourceMediaRows(routes: [route: string, below: string, content: string][]): Row[] {
  const nothing = { profile: [] }
  const rows = routes.flatMap(([route, below, content]): Row[] => [
    {
      method: 'GET',
      route,
      withRight: roles('resource.view'),
      without: roles('stream.view'),
      setup: async () => ({
        path: `/resource/${P().resource}/${below}`,
        check: (res) => expect(res.body).toContain(content),
      }),
      expect: allowed(200, 404),
      anonymous: route.endsWith('/source') ? 401 : 200,
    },
    {
      method: 'GET',
      route,
      variant: 'a media token',
      withRight: nothing,
      without: nothing,
      setup: async () => ({
        path: `/resource/${P().resource}/${below}?token=${await w.resourceToken(P().resource)}`,
        check: (res) => expect(res.body).toContain(content),
      }),
      expect: everyone(200),
      anonymous: 200,
      token: true,
    },
  ])
  const thumbnail = '/resource/:resource/thumbnail/thumb.jpg'
  return [
    ...rows,
    {
      method: 'GET',
      route: thumbnail,
      variant: 'a hidden resource: resource.view_protected',
      withRight: roles('resource.view', 'resource.view_protected'),
      without: roles('resource.view'),
      setup: async () => ({ path: `/resource/${P().hiddenResource}/thumbnail/thumb.jpg` }),
      expect: allowed(200, 404),
    },
    {
      method: 'GET',
      route: thumbnail,
      variant: 'a media token of another resource',
      withRight: nothing,
      without: nothing,
      setup: async () => ({
        path: `/resource/${P().resource}/thumbnail/thumb.jpg?token=${await w.resourceToken(P().hiddenResource)}`,
      }),
      expect: everyone(403),
      anonymous: 403,
      token: true,
    },
  ]
}

/**
 * Accesses on media, streams and resources, through the subjects' routes: granted and revoked
 * with the profile's manage flag, or `<kind>.manage_access` on the object (media, stream);
 * objects the caller may not see (hidden ones without view_protected) are as missing ones.
 */
function accessesOnPublishingRows(): Row[] {
  const subjects = [PV, 'user.view', 'group.view']
  const on = (kind: Publishing, ...flags: string[]): Grant => ({
    profile: subjects,
    role: flags,
    via: 'user',
    on: kind,
  })
  const grant = (
    variant: string,
    kind: Publishing,
    object: () => string,
    grants: { withRight: Grant; without: Grant },
    expected: Record<Actor, number>,
    knownIssues?: Row['knownIssues'],
  ): Row => ({
    method: 'POST',
    route: '/user/:username/accesses',
    variant,
    ...grants,
    setup: async () => {
      const username = await freshUser()
      return {
        path: `/user/${username}/accesses`,
        form: { [kind]: object(), role: P().role },
        applied: () => w.exists('access', { user: { username }, objectKind: kind }),
      }
    },
    expect: expected,
    knownIssues,
  })
  return [
    grant(
      'on a media: media.manage_access there',
      'media',
      () => P().media,
      { withRight: on('media', 'media.view', 'media.manage_access'), without: on('media', 'media.view') },
      allowed(201, 403),
    ),
    {
      method: 'POST',
      route: '/group/:group/accesses',
      variant: 'on a stream: stream.manage_access there',
      withRight: on('stream', 'stream.view', 'stream.manage_access'),
      without: on('stream', 'stream.view'),
      setup: async () => {
        const slug = await w.group(P().platform)
        return {
          path: `/group/${slug}/accesses`,
          form: { stream: P().stream, role: P().role },
          applied: () => w.exists('access', { group: { slug }, objectKind: 'stream' }),
        }
      },
      expect: allowed(201, 403),
    },
    {
      method: 'DELETE',
      route: '/user/:username/accesses/:access',
      variant: 'on a media: media.manage_access there',
      withRight: on('media', 'media.view', 'media.manage_access'),
      without: on('media', 'media.view'),
      setup: async () => {
        const username = await freshUser()
        const publicId = await w.access(P().platform, { user: username }, P().role, await w.refOf('media', P().media))
        return {
          path: `/user/${username}/accesses/${publicId}`,
          applied: async () => !(await w.exists('access', { publicId })),
        }
      },
      expect: allowed(200, 403),
    },
    // Without view_protected a hidden stream does not exist for the caller: as for a missing
    // stream, a caller managing accesses only through stream.manage_access gets 403.
    grant(
      'on a hidden stream: stream.view_protected',
      'stream',
      () => P().hiddenStream,
      {
        withRight: { profile: subjects, role: ['stream.view', 'stream.view_protected', 'stream.manage_access'] },
        without: { profile: subjects, role: ['stream.view', 'stream.manage_access'] },
      },
      allowed(201, 403),
    ),
    // ... and with the profile's user.manage_access, 412 (`no resource "<slug>" on platform ...`).
    grant(
      'on a hidden resource: resource.view_protected',
      'resource',
      () => P().hiddenResource,
      {
        withRight: { profile: [...subjects, 'user.manage_access'], role: ['resource.view', 'resource.view_protected'] },
        without: { profile: [...subjects, 'user.manage_access'], role: ['resource.view'] },
      },
      allowed(201, 412),
    ),
    {
      method: 'DELETE',
      route: '/user/:username/accesses/:access',
      variant: 'on a hidden stream: stream.view_protected',
      withRight: { profile: subjects, role: ['stream.view', 'stream.view_protected', 'stream.manage_access'] },
      without: { profile: subjects, role: ['stream.view', 'stream.manage_access'] },
      setup: async () => {
        const username = await freshUser()
        const hidden = await w.refOf('stream', P().hiddenStream)
        const publicId = await w.access(P().platform, { user: username }, P().role, hidden)
        return {
          path: `/user/${username}/accesses/${publicId}`,
          applied: async () => !(await w.exists('access', { publicId })),
        }
      },
      // As for an access that does not exist: the caller may not see what it is on.
      expect: allowed(200, 404),
    },
    {
      method: 'GET',
      route: '/user/:username/accesses',
      variant: 'an access on a hidden stream: named to who sees the stream',
      withRight: { profile: [PV, 'user.view'], role: ['stream.view', 'stream.view_protected'] },
      without: { profile: [PV, 'user.view'], role: ['stream.view'] },
      setup: async (actor) => ({
        path: `/user/${P().user}/accesses`,
        check: (res) => {
          expect(res.body).toContain(`/stream/${P().stream}"`)
          expect(res.body.includes(`/stream/${P().hiddenStream}"`), res.body).toBe(actor !== 'without')
        },
      }),
      expect: { ...allowed(200, 404), without: 200 },
    },
  ]
}

/**
 * Channels of a media: read with media.view, created, changed and deleted with media.edit; a
 * theme or skin also needs media.change_theme.
 */
function channelRows(): Row[] {
  const editor = roles('media.view', 'media.edit')
  const themer = roles('media.view', 'media.edit', 'media.change_theme')
  const create = (variant: string, withRight: Grant, without: Grant, fields: Record<string, string>): Row => ({
    method: 'POST',
    route: '/media/:media/channels',
    variant,
    withRight,
    without,
    setup: async () => {
      const name = unique('alpha-made-channel')
      return {
        path: `/media/${P().media}/channels`,
        form: { name, ...fields },
        applied: () => w.exists('channel', { name, media: { slug: P().media } }),
        check: (res) => expectElement(res, 'name', name),
      }
    },
    expect: allowed(201, 403),
  })
  const change = (variant: string, withRight: Grant, without: Grant, fields: Record<string, string>): Row => ({
    method: 'PUT',
    route: '/media/:media/channel/:channel',
    variant,
    withRight,
    without,
    setup: async () => {
      const slug = await w.channel(P().media, 'web')
      const form = { name: unique('alpha-renamed'), ...fields }
      return {
        path: `/media/${P().media}/channel/${slug}`,
        form,
        applied: () => w.exists('channel', { slug, ...form }),
        check: (res) => expectElement(res, 'name', form.name),
      }
    },
    expect: allowed(201, 403),
  })
  return [
    readRow({
      route: '/media/:media/channels',
      withRight: roles('media.view'),
      without: { profile: [PV] },
      path: () => `/media/${P().media}/channels`,
      slug: () => P().channel,
    }),
    create('an api channel', editor, roles('media.view'), { type: 'api' }),
    create('a web channel with a theme: media.change_theme', themer, editor, { type: 'web', theme: 'dark' }),
    readRow({
      route: '/media/:media/channel/:channel',
      withRight: roles('media.view'),
      without: { profile: [PV] },
      path: () => `/media/${P().media}/channel/${P().channel}`,
      slug: () => P().channel,
    }),
    change('its name', editor, roles('media.view'), {}),
    change('its skin: media.change_theme', themer, editor, { skin: 'blue' }),
    {
      method: 'DELETE',
      route: '/media/:media/channel/:channel',
      withRight: editor,
      without: roles('media.view'),
      setup: async () => {
        const slug = await w.channel(P().media)
        return {
          path: `/media/${P().media}/channel/${slug}`,
          applied: async () => !(await w.exists('channel', { slug })),
        }
      },
      expect: allowed(204, 403),
    },
  ]
}

/**
 * Player themes or behaviors of P: read by whoever sees the platform (`viewer`: platform.view,
 * through the profile or a role); created, changed and deleted with the profile's
 * `<kind>.create`, `.edit`, `.delete` besides (403 without, 404 without platform.view).
 */
function playerRows(kind: PlayerKind, param: 'theme' | 'behavior', viewer: Grant): Row[] {
  const list = `/platform/:platform/${kind}`
  const one = `${list}/:${param}`
  const at = (slug?: string) => `/platform/${P().platform.slug}/${kind}${slug ? `/${slug}` : ''}`
  const writer = (action: string): Grant => ({ ...viewer, profile: [...viewer.profile, `${kind}.${action}`] })
  const blind: Grant = { profile: [`${kind}.create`, `${kind}.edit`, `${kind}.delete`] }
  const read = (route: string, slug?: () => string): Row =>
    readRow({ route, withRight: viewer, without: blind, path: () => at(slug?.()), slug: () => P()[param] })
  const create = (variant: string, without: Grant, refused: 403 | 404): Row => ({
    method: 'POST',
    route: list,
    variant,
    withRight: writer('create'),
    without,
    setup: async () => {
      const name = unique(`alpha-made-${param}`)
      return {
        path: at(),
        form: { name },
        applied: () => w.exists(kind, { name, platform: P().platform.id }),
        check: (res) => expectElement(res, 'name', name),
      }
    },
    expect: allowed(201, refused),
  })
  return [
    read(list),
    create(`without ${kind}.create`, viewer, 403),
    create('without platform.view', blind, 404),
    read(one, () => P()[param]),
    {
      method: 'PUT',
      route: one,
      withRight: writer('edit'),
      without: viewer,
      setup: async () => {
        const slug = await w.player(kind, P().platform)
        const name = unique('alpha-renamed')
        return {
          path: at(slug),
          form: { name },
          applied: () => w.exists(kind, { slug, name }),
          check: (res) => expectElement(res, 'name', name),
        }
      },
      expect: allowed(200, 403),
    },
    {
      method: 'DELETE',
      route: one,
      withRight: writer('delete'),
      without: viewer,
      setup: async () => {
        const slug = await w.player(kind, P().platform)
        return { path: at(slug), applied: async () => !(await w.exists(kind, { slug })) }
      },
      expect: allowed(204, 403),
    },
  ]
}

/**
 * Widgets of P's resource: read with resource.view (seen as the resource), created, changed
 * and deleted with resource.edit; setting a theme (behavior) also needs the profile's
 * player_theme.use (player_behavior.use).
 */
/** Webhooks (an extension of the contract): platform.edit on the webhook's platform, 403 to who only sees it. */
function webhookRows(): Row[] {
  const admins = roles(PV, 'platform.edit')
  const seer: Grant = { profile: [PV] }
  const at = (id: string, rest = '') => `/webhook/${id}${rest}`
  const fresh = (): Promise<string> => w.webhook(P().platform)
  const row = (method: Row['method'], route: string, ok: number, setup: () => Promise<Target>): Row => ({
    method,
    route,
    withRight: admins,
    without: seer,
    setup,
    expect: allowed(ok, 403),
  })
  return [
    row('GET', '/platform/:platform/webhooks', 200, async () => ({ path: `/platform/${P().platform.slug}/webhooks` })),
    row('GET', '/platform/:platform/webhook_event_types', 200, async () => ({
      path: `/platform/${P().platform.slug}/webhook_event_types`,
      check: (res) => expect(res.body).toContain('<name><![CDATA[file.encoded]]></name>'),
    })),
    row('POST', '/platform/:platform/webhooks', 201, async () => {
      const description = unique('made-hook')
      return {
        path: `/platform/${P().platform.slug}/webhooks`,
        form: { url: HOOK_URL, events: 'webhook.test', description },
        applied: () => w.exists('webhook', { description, platformId: P().platform.id }),
        check: (res) => expectElement(res, 'description', description),
      }
    }),
    row('GET', '/webhook/:webhook', 200, async () => ({ path: at(P().webhook) })),
    row('PUT', '/webhook/:webhook', 200, async () => {
      const id = await fresh()
      const description = unique('changed-hook')
      return {
        path: at(id),
        form: { description },
        applied: () => w.exists('webhook', { publicId: id, description }),
      }
    }),
    row('DELETE', '/webhook/:webhook', 204, async () => {
      const id = await fresh()
      return { path: at(id), applied: async () => !(await w.exists('webhook', { publicId: id })) }
    }),
    row('POST', '/webhook/:webhook/rotate_secret', 200, async () => {
      const id = await fresh()
      return {
        path: at(id, '/rotate_secret'),
        applied: () => w.exists('webhook', { publicId: id, previousSecret: { $ne: null } }),
      }
    }),
    row('POST', '/webhook/:webhook/test', 202, async () => {
      const id = await fresh()
      return {
        path: at(id, '/test'),
        applied: () => w.webhookHasEvent(id, { type: 'webhook.test', state: { $ne: 'failed' } }),
      }
    }),
    row('GET', '/webhook/:webhook/deliveries', 200, async () => ({ path: at(P().webhook, '/deliveries') })),
    row('GET', '/webhook/:webhook/deliveries/:delivery', 200, async () => ({
      path: at(P().webhook, `/deliveries/${P().delivery}`),
    })),
    row('POST', '/webhook/:webhook/deliveries/:delivery/redeliver', 202, async () => {
      const id = await fresh()
      const delivery = await w.delivery(id)
      return {
        path: at(id, `/deliveries/${delivery}/redeliver`),
        applied: () => w.webhookHasEvent(id, { state: { $ne: 'failed' } }),
      }
    }),
  ]
}

/**
 * Jobs (an extension of the contract): installation administrators see every job, platform.edit on the caller's
 * platform the jobs of its files (another platform's: 404), others 403. The list is the caller's own: the other
 * tenant's administrator gets theirs, without P's job.
 */
function jobRows(): Row[] {
  const admins = roles(PV, 'platform.edit')
  const seer: Grant = { profile: [PV] }
  const onJob = (ok: number): Record<Actor, number> => allowed(ok, 403)
  const row = (method: Row['method'], route: string, setup: () => Promise<Target>): Row => ({
    method,
    route,
    withRight: admins,
    without: seer,
    setup,
    expect: onJob(200),
  })
  const hasJob = (res: Response, id: string) => res.body.includes(`<id><![CDATA[${id}]]></id>`)
  return [
    {
      method: 'GET',
      route: '/jobs',
      withRight: admins,
      without: seer,
      setup: async (actor) => ({
        path: '/jobs',
        check: (res) => expect(hasJob(res, P().job), res.body).toBe(actor !== 'otherTenant'),
      }),
      expect: { ...onJob(200), otherTenant: 200 },
    },
    row('GET', '/job/:job', async () => ({
      path: `/job/${P().job}`,
      check: (res) => expectElement(res, 'state', 'failed'),
    })),
    row('POST', '/job/:job/retry', async () => {
      const id = await w.job(P().file, 'failed')
      return { path: `/job/${id}/retry`, applied: async () => (await w.jobState(id)) !== 'failed' }
    }),
    row('POST', '/job/:job/cancel', async () => {
      const id = await w.job(P().file, 'waiting')
      return { path: `/job/${id}/cancel`, applied: async () => (await w.jobState(id)) === 'cancelled' }
    }),
  ]
}

function widgetRows(): Row[] {
  const editor = roles('resource.view', 'resource.edit')
  const at = (widget?: string) => `/resource/${P().resource}/widgets${widget ? `/${widget}` : ''}`
  const read = (route: string, widget?: () => string): Row =>
    readRow({
      route,
      withRight: roles('resource.view'),
      without: roles('stream.view'),
      path: () => at(widget?.()),
      slug: () => P().widget,
    })
  const create = (variant: string, withRight: Grant, without: Grant, fields: () => Record<string, string>): Row => ({
    method: 'POST',
    route: '/resource/:resource/widgets',
    variant,
    withRight,
    without,
    setup: async () => {
      const name = unique('alpha-made-widget')
      return {
        path: at(),
        form: { name, size: '640x360', ...fields() },
        applied: () => w.exists('widget', { name, resource: { slug: P().resource } }),
        check: (res) => expectElement(res, 'name', name),
      }
    },
    expect: allowed(201, 403),
  })
  const change = (variant: string, withRight: Grant, without: Grant, fields: () => Record<string, string>): Row => ({
    method: 'PUT',
    route: '/resource/:resource/widgets/:widget',
    variant,
    withRight,
    without,
    setup: async () => {
      const slug = await w.widget(P().resource)
      const name = unique('alpha-renamed')
      const form = { name, ...fields() }
      const players = Object.fromEntries(
        Object.entries(fields()).map(([field, value]) => [
          field === 'player_theme' ? 'playerTheme' : 'playerBehavior',
          { slug: value },
        ]),
      )
      return {
        path: at(slug),
        form,
        applied: () => w.exists('widget', { slug, name, ...players }),
        check: (res) => expectElement(res, 'name', name),
      }
    },
    expect: allowed(200, 403),
  })
  return [
    read('/resource/:resource/widgets'),
    {
      method: 'GET',
      route: '/resource/:resource/widgets',
      variant: 'of a hidden resource: resource.view_protected',
      withRight: roles('resource.view', 'resource.view_protected'),
      without: roles('resource.view'),
      setup: async () => ({ path: `/resource/${P().hiddenResource}/widgets` }),
      expect: allowed(200, 404),
    },
    create('its size', editor, roles('resource.view'), () => ({})),
    create('with a player theme: player_theme.use', { ...editor, profile: ['player_theme.use'] }, editor, () => ({
      player_theme: P().theme,
    })),
    read('/resource/:resource/widgets/:widget', () => P().widget),
    change('its name', editor, roles('resource.view'), () => ({})),
    change(
      'with a player behavior: player_behavior.use',
      { ...editor, profile: ['player_behavior.use'] },
      editor,
      () => ({ player_behavior: P().behavior }),
    ),
    {
      method: 'DELETE',
      route: '/resource/:resource/widgets/:widget',
      withRight: editor,
      without: roles('resource.view'),
      setup: async () => {
        const slug = await w.widget(P().resource)
        return { path: at(slug), applied: async () => !(await w.exists('widget', { slug })) }
      },
      expect: allowed(204, 403),
    },
  ]
}

/**
 * The recorder: each caller asks a code for themselves (profile video_recorder.use and
 * file.create); spending a code is public, the code being the credential (once).
 */
function recorderRows(): Row[] {
  const nothing = { profile: [] }
  const spend = '/extension/widget/recorder/:code/upload_links'
  const used = async (code: string) => (await peekRecorderCode(app.kernel.services.reader, code))?.usedAt != null
  return [
    own({
      method: 'GET',
      route: '/extension/widget/recorder',
      withRight: { profile: ['video_recorder.use', 'file.create'] },
      without: { profile: ['file.create'] },
      target: async () => ({
        path: '/extension/widget/recorder',
        check: (res) => expect(res.body).toContain('%2Frecorder%2F'),
      }),
      ok: 200,
    }),
    {
      method: 'POST',
      route: spend,
      variant: 'a fresh code',
      withRight: nothing,
      without: nothing,
      setup: async () => {
        const code = await w.recorderCode()
        return {
          path: `/extension/widget/recorder/${code}/upload_links`,
          applied: () => used(code),
          check: (res) => expect(res.body).toMatch(/rel="json" href="[^"]*\/upload\/json\?token=/),
        }
      },
      expect: everyone(200),
      anonymous: 200,
    },
    {
      method: 'POST',
      route: spend,
      variant: 'a code already used',
      withRight: nothing,
      without: nothing,
      setup: async () => {
        const code = await w.recorderCode()
        expect((await rawRequest(`${app.url}/extension/widget/recorder/${code}/upload_links`, 'POST')).status).toBe(200)
        return { path: `/extension/widget/recorder/${code}/upload_links` }
      },
      expect: everyone(412),
      anonymous: 412,
    },
  ]
}

/** A row of a public route: every caller, anonymous ones too, gets `status` (credentials change nothing). */
function publicRow(
  row: Pick<Row, 'route' | 'variant'> & { method?: Row['method']; status: number; setup: () => Promise<Target> },
): Row {
  const nothing = { profile: [] }
  return {
    method: row.method ?? 'GET',
    route: row.route,
    variant: row.variant,
    withRight: nothing,
    without: nothing,
    setup: row.setup,
    expect: everyone(row.status),
    anonymous: row.status,
  }
}

/** Checks that a body names `present` and none of `absent`, each between delimiters (`>slug<`, `/slug"`). */
function namesExactly(body: string, around: (slug: string) => string, present: string[], absent: string[]): void {
  for (const slug of present) expect(body, `${around(slug)} in ${body}`).toContain(around(slug))
  for (const slug of absent) expect(body, `no ${around(slug)} in ${body}`).not.toContain(around(slug))
}

/**
 * The recorder page behind the widget's iframe: public, the code in the address is the
 * credential, only read (404 unknown, 410 used or expired); and its script.
 */
function recorderPageRows(): Row[] {
  const route = '/recorder/:code'
  const unused = async (code: string) =>
    expect((await peekRecorderCode(app.kernel.services.reader, code))?.usedAt).toBeNull()
  const page = (variant: string, status: number, code: () => Promise<string>): Row =>
    publicRow({
      route,
      variant,
      status,
      setup: async () => {
        const fresh = await code()
        return {
          path: `/recorder/${fresh}`,
          check: async (res) => {
            expect(res.body).toContain(`${encodeURIComponent(fresh)}/upload_links`)
            // Peeked, not spent: the recording may still be sent.
            await unused(fresh)
          },
        }
      },
    })
  const asset = '/recorder/assets/:file'
  return [
    page('a fresh code', 200, () => w.recorderCode()),
    page('an unknown code', 404, async () => 'N0such0recorder0code000000000000'),
    page('a used code', 410, () => w.recorderCode('used')),
    page('an expired code', 410, () => w.recorderCode('expired')),
    publicRow({
      route: asset,
      variant: 'the current script',
      status: 200,
      setup: async () => ({
        path: `/recorder/assets/${recorderScript().file}`,
        check: (res) => expect(String(res.headers['content-type'])).toMatch(/^text\/javascript/),
      }),
    }),
    publicRow({
      route: asset,
      variant: 'any other name',
      status: 404,
      setup: async () => ({ path: '/recorder/assets/recorder-0000000000000000.js' }),
    }),
  ]
}

/**
 * The console's pages (docs/console.md): public routes, the session cookie their credential; the matrix's callers
 * send none, so each answers as to someone signed out, whoever the Digest credentials name.
 */
function consoleRows(): Row[] {
  const row = (method: Row['method'], route: string, status: number, setup: () => Promise<Target>, variant?: string) =>
    publicRow({ method, route, status, setup, variant })
  const unknownLink = `/console/link/${'N0such0link'.padEnd(43, '0')}`
  return [
    // Each section of the console (console.pages.ts): to someone signed out, the way to the sign-in page.
    ...Object.values(SECTIONS).map(({ path }) =>
      row('GET', path, 303, async () => ({
        path: `${path}?slug=anything`,
        check: (res) => expect(res.headers.location).toBe(`${app.url}/console/sign-in`),
      })),
    ),
    row('GET', '/console/sign-in', 200, async () => ({ path: '/console/sign-in' })),
    row('POST', '/console/sign-in', 400, async () => ({ path: '/console/sign-in', form: { username: 'x' } })),
    row('POST', '/console/sign-out', 303, async () => ({ path: '/console/sign-out', form: { csrf: 'x' } })),
    row('POST', '/console/sign-out-everywhere', 303, async () => ({
      path: '/console/sign-out-everywhere',
      form: { csrf: 'x' },
    })),
    row('GET', '/console/link/:token', 404, async () => ({ path: unknownLink })),
    row('POST', '/console/link/:token', 404, async () => ({
      path: unknownLink,
      form: { password: 'long enough password', confirm: 'long enough password' },
    })),
    row('GET', '/console/language', 303, async () => ({ path: '/console/language?to=fr&back=/console' })),
    row(
      'GET',
      '/console/assets/:file',
      200,
      async () => ({ path: `/console/assets/${consoleScripts().library.file}` }),
      'the current script',
    ),
    row(
      'GET',
      '/console/assets/:file',
      404,
      async () => ({ path: '/console/assets/console-0000000000000000.js' }),
      'any other name',
    ),
  ]
}

/**
 * RSS feeds: public (feed readers cannot do Digest), only of an online syndication channel,
 * listing the visible resources of visible streams; one 404 for every other channel.
 */
function feedRows(): Row[] {
  const route = '/media/:media/channel/:channel/feed.rss'
  const missing = (variant: string, path: () => Promise<string>): Row =>
    publicRow({ route, variant, status: 404, setup: async () => ({ path: await path() }) })
  return [
    publicRow({
      route,
      variant: 'an online syndication channel',
      status: 200,
      setup: async () => ({
        path: `/media/${P().media}/channel/${P().feed}/feed.rss`,
        check: (res) => {
          expect(String(res.headers['content-type'])).toMatch(/^application\/rss\+xml/)
          const { resource, hiddenResource, resourceInHiddenStream, draftResource } = P()
          namesExactly(res.body, (slug) => `>${slug}</guid>`, [resource], [hiddenResource, resourceInHiddenStream])
          namesExactly(res.body, (slug) => `/${slug}/`, [], [hiddenResource, resourceInHiddenStream, draftResource])
        },
      }),
    }),
    missing('a web channel', async () => `/media/${P().media}/channel/${P().channel}/feed.rss`),
    missing(
      'an offline syndication channel',
      async () => `/media/${P().media}/channel/${await w.channel(P().media, FEED_CHANNEL_TYPE, false)}/feed.rss`,
    ),
    missing('a syndication channel of another media', async () => `/media/${P().media}/channel/${w.q.feed}/feed.rss`),
    missing('an unknown channel', async () => `/media/${P().media}/channel/no-such-channel/feed.rss`),
  ]
}

/**
 * The media portal: public, the site of a media's online web channel (P's media has one),
 * showing only visible streams and resources; everything else (a media without an online web
 * channel, hidden and draft streams and resources, another media's, other addresses) is 404.
 */
function portalRows(): Row[] {
  /** A media of P whose web channel is offline. */
  const mediaWithoutPortal = once(() => w.mediaWithoutPortal(P().platform))
  /**
   * A visible stream of P's media with a visible, a hidden and a draft resource (P's own
   * stream holds too many resources by then for one page to show them all).
   */
  const shelf = once(async () => {
    const slug = await w.stream(P().media)
    const visible = await w.resource(slug, P().file)
    const hidden = await w.resource(slug, P().file, 'hidden')
    const draft = await w.resource(slug, P().file, 'draft')
    return { slug, visible, hidden, draft }
  })
  const at = (below = '') => `/portal/${P().media}${below}`
  const link = (kind: 'stream' | 'resource') => (slug: string) => `/portal/${P().media}/${kind}/${slug}"`
  const missing = (route: string, variant: string, path: () => Promise<string> | string): Row =>
    publicRow({ route, variant, status: 404, setup: async () => ({ path: await path() }) })
  const home = '/portal/:media'
  const stream = '/portal/:media/stream/:stream'
  const resource = '/portal/:media/resource/:resource'
  const assets = '/portal/:media/assets/:file'
  const style = (variant: string, file: string): Row =>
    publicRow({
      route: assets,
      variant,
      status: 200,
      setup: async () => ({
        path: at(`/assets/${file}`),
        check: (res) => expect(String(res.headers['content-type'])).toMatch(/^text\/css/),
      }),
    })
  return [
    publicRow({
      route: home,
      variant: 'a media with an online web channel',
      status: 200,
      setup: async () => ({
        path: at(),
        check: (res) => {
          const { stream: shown, hiddenStream, draftStream } = P()
          namesExactly(res.body, link('stream'), [shown], [hiddenStream, draftStream])
        },
      }),
    }),
    missing(home, 'a media whose web channel is offline', async () => `/portal/${await mediaWithoutPortal()}`),
    missing(home, 'an unknown media', () => '/portal/no-such-media'),
    publicRow({
      route: stream,
      variant: 'a visible stream',
      status: 200,
      setup: async () => {
        const { slug, visible, hidden, draft } = await shelf()
        return {
          path: at(`/stream/${slug}`),
          check: (res) => namesExactly(res.body, link('resource'), [visible], [hidden, draft]),
        }
      },
    }),
    missing(stream, 'a hidden stream', () => at(`/stream/${P().hiddenStream}`)),
    missing(stream, 'a draft stream', () => at(`/stream/${P().draftStream}`)),
    missing(stream, "another media's stream", () => at(`/stream/${w.q.stream}`)),
    missing(stream, 'a media whose web channel is offline', async () => {
      return `/portal/${await mediaWithoutPortal()}/stream/${P().stream}`
    }),
    publicRow({
      route: resource,
      variant: 'a visible resource of a visible stream',
      status: 200,
      setup: async () => ({
        path: at(`/resource/${P().resource}`),
        check: (res) => expect(res.body).toContain(`/player/${P().resource}"`),
      }),
    }),
    missing(resource, 'a hidden resource', () => at(`/resource/${P().hiddenResource}`)),
    missing(resource, 'a resource of a hidden stream', () => at(`/resource/${P().resourceInHiddenStream}`)),
    missing(resource, 'a draft resource', () => at(`/resource/${P().draftResource}`)),
    missing(resource, "another media's resource", () => at(`/resource/${w.q.resource}`)),
    style('the current stylesheet', PORTAL_STYLE_FILE),
    style('an older stylesheet (styled with the current one)', 'portal.0123456789abcdef.css'),
    missing(assets, 'any other name', () => at('/assets/style.css')),
    missing(assets, 'a media whose web channel is offline', async () => {
      return `/portal/${await mediaWithoutPortal()}/assets/${PORTAL_STYLE_FILE}`
    }),
    missing('/portal/:media/*', 'any other address of an open portal', () => at('/no/such/page')),
    missing('/portal/:media/*', 'a media whose web channel is offline', async () => {
      return `/portal/${await mediaWithoutPortal()}/no/such/page`
    }),
  ]
}

/** Made once, on first use (objects only some rows need). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return () => (made ??= make())
}

/** The `players` URL of a resource's info asked `with-token` (as the installation administrator): its path and query. */
async function playerLink(resource: string): Promise<string> {
  const res = await app.client.get(`/resource/${resource}?with-token=1`)
  expect(res.status, res.body).toBe(200)
  const url = /<player name="default">(?:<!\[CDATA\[)?([^<\]]+)/.exec(res.body)?.[1]
  expect(url, res.body).toBeDefined()
  const { pathname, search } = new URL(url!.replaceAll('&amp;', '&'))
  expect(pathname).toBe(`/player/${resource}`)
  expect(search).toMatch(/^\?token=/)
  return `${pathname}${search}`
}

/** The number of views of a resource (fresh read). */
async function viewsOf(slug: string): Promise<number> {
  return (await w.em().findOneOrFail(ResourceEntity, { slug })).views
}

/**
 * The player: public pages of a resource (`/player/<resource>`) and of a widget
 * (`/embed/<widget>`, `/embed/<widget>.js`). A visible resource (in visible streams) plays
 * for everyone; a hidden one, or one in a hidden stream, only with a resource token for it
 * (`?token=`); a draft one, or one in a draft stream, never: 404 as for an unknown slug. A
 * token of another resource is refused (403). Views are counted with the page's view token.
 */
function playerPageRows(): Row[] {
  const page = '/player/:resource'
  const embed = '/embed/:widget'
  const script = '/embed/:widget.js'
  const views = '/player/:resource/views'
  /** A resource of P's draft stream (visible itself). */
  const resourceInDraftStream = once(() => w.resource(P().draftStream, P().file))
  /** Widgets of P's hidden resource, of its draft resource, and of the resource in its hidden stream. */
  const hiddenWidget = once(() => w.widget(P().hiddenResource))
  const draftWidget = once(() => w.widget(P().draftResource))
  const widgetInHiddenStream = once(() => w.widget(P().resourceInHiddenStream))
  const token = (resource: string) => w.resourceToken(resource)
  const isPage = (res: Response) => expect(String(res.headers['content-type'])).toMatch(/^text\/html/)
  const playerRow = (variant: string, status: number, path: () => Promise<string>): Row =>
    publicRow({ route: page, variant, status, setup: async () => ({ path: await path(), check: isPage }) })
  const widgetRows = (
    variant: string,
    status: number,
    widget: () => Promise<string>,
    query: () => Promise<string> = async () => '',
  ): Row[] => [
    publicRow({
      route: embed,
      variant,
      status,
      setup: async () => ({ path: `/embed/${await widget()}${await query()}`, check: isPage }),
    }),
    publicRow({
      route: script,
      variant,
      status,
      setup: async () => {
        const slug = await widget()
        return {
          path: `/embed/${slug}.js${await query()}`,
          check: (res) => {
            expect(String(res.headers['content-type'])).toMatch(/^text\/javascript/)
            expect(res.body).toContain(`/embed/${slug}`)
          },
        }
      },
    }),
  ]
  const assets = new PlayerAssets()
  const asset = (variant: string, status: number, name: string): Row =>
    publicRow({
      route: '/player/assets/:asset',
      variant,
      status,
      setup: async () => ({
        path: `/player/assets/${name}`,
        check: (res) => expect(String(res.headers['content-type'])).toMatch(/^text\/javascript/),
      }),
    })
  const view = async (resource: string) => {
    const { id } = await w.refOf('resource', resource)
    return viewToken(tokensWith(app.kernel.services.secret), { id, slug: resource }, 600)
  }
  return [
    playerRow('a visible resource', 200, async () => `/player/${P().resource}`),
    playerRow('a hidden resource, without a token', 404, async () => `/player/${P().hiddenResource}`),
    playerRow("a hidden resource, its info's players link (a resource token)", 200, () =>
      playerLink(P().hiddenResource),
    ),
    playerRow('a resource of a hidden stream, without a token', 404, async () => {
      return `/player/${P().resourceInHiddenStream}`
    }),
    playerRow('a resource of a hidden stream, with a resource token', 200, async () => {
      return `/player/${P().resourceInHiddenStream}?token=${await token(P().resourceInHiddenStream)}`
    }),
    playerRow('a draft resource, without a token', 404, async () => `/player/${P().draftResource}`),
    playerRow('a draft resource, with a resource token', 404, async () => {
      return `/player/${P().draftResource}?token=${await token(P().draftResource)}`
    }),
    playerRow('a resource of a draft stream, with a resource token', 404, async () => {
      const slug = await resourceInDraftStream()
      return `/player/${slug}?token=${await token(slug)}`
    }),
    playerRow('a visible resource, with the token of another resource', 403, async () => {
      return `/player/${P().resource}?token=${await token(P().hiddenResource)}`
    }),
    playerRow('a hidden resource, with the token of another resource', 403, async () => {
      return `/player/${P().hiddenResource}?token=${await token(P().resource)}`
    }),
    playerRow('an unknown resource', 404, async () => '/player/no-such-resource'),
    ...widgetRows('a widget of a visible resource', 200, async () => P().widget),
    ...widgetRows('a widget of a hidden resource, without a token', 404, hiddenWidget),
    ...widgetRows('a widget of a hidden resource, with a resource token', 200, hiddenWidget, async () => {
      return `?token=${await token(P().hiddenResource)}`
    }),
    ...widgetRows('a widget of a resource of a hidden stream, without a token', 404, widgetInHiddenStream),
    ...widgetRows('a widget of a draft resource, with a resource token', 404, draftWidget, async () => {
      return `?token=${await token(P().draftResource)}`
    }),
    ...widgetRows('a widget of a hidden resource, with the token of another resource', 403, hiddenWidget, async () => {
      return `?token=${await token(P().resource)}`
    }),
    ...widgetRows('an unknown widget', 404, async () => 'no-such-widget'),
    asset('hls.js', 200, assets.hlsName),
    asset("the page's script", 200, assets.playerName),
    asset('any other name', 404, 'player-0000000000000000.js'),
    publicRow({
      route: views,
      method: 'POST',
      variant: "the page's view token: one view counted",
      status: 204,
      setup: async () => {
        const before = await viewsOf(P().resource)
        return {
          path: `/player/${P().resource}/views?token=${await view(P().resource)}`,
          applied: async () => (await viewsOf(P().resource)) === before + 1,
        }
      },
    }),
    publicRow({
      route: views,
      method: 'POST',
      variant: 'a view token already used: nothing more counted',
      status: 204,
      setup: async () => {
        const used = await view(P().resource)
        const path = `/player/${P().resource}/views?token=${used}`
        expect((await rawRequest(app.url + path, 'POST')).status).toBe(204)
        const before = await viewsOf(P().resource)
        return { path, check: async () => expect(await viewsOf(P().resource)).toBe(before) }
      },
    }),
    publicRow({
      route: views,
      method: 'POST',
      variant: 'the view token of another resource',
      status: 403,
      setup: async () => {
        const before = await viewsOf(P().hiddenResource)
        return {
          path: `/player/${P().hiddenResource}/views?token=${await view(P().resource)}`,
          applied: async () => (await viewsOf(P().hiddenResource)) !== before,
        }
      },
    }),
    publicRow({
      route: views,
      method: 'POST',
      variant: 'a resource token (not a view token)',
      status: 401,
      setup: async () => ({ path: `/player/${P().resource}/views?token=${await token(P().resource)}` }),
    }),
    publicRow({
      route: views,
      method: 'POST',
      variant: 'no token',
      status: 403,
      setup: async () => ({ path: `/player/${P().resource}/views` }),
    }),
  ]
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
  // The webhooks of the matrix point at a closed port of 127.0.0.1 (HOOK_URL): allowed, and never off the machine.
  // Views written at once: the row of the view route checks the count right after the play.
  app = await startApp({
    config: { webhooks: { allow_private_networks: true }, resources: { views_flush_ms: 0 } },
  })
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
    // Public routes answer anonymous callers as everyone else (no 401): their rows say so, and
    // each has a row where anonymous callers succeed, but the portal's catch-all (a 404 page).
    // So do the routes serving anonymous callers too (public assets of published resources).
    const publics = app.kernel.routes.routes
      .filter((r) => r.options.public || r.options.anonymous)
      .map((r) => `${r.method} ${r.path}`)
    const answering = (ok: (status: number) => boolean) =>
      new Set(ROWS.filter((row) => !row.token && ok(row.anonymous ?? 401)).map((row) => `${row.method} ${row.route}`))
    expect([...answering((status) => status !== 401)].sort()).toEqual([...publics].sort())
    const succeeding = answering((status) => status < 400)
    // And the console's forms, which someone signed out may only get refused (a missing field, an unknown link).
    expect(publics.filter((route) => !succeeding.has(route))).toEqual([
      'POST /console/sign-in',
      'GET /console/link/:token',
      'POST /console/link/:token',
      'GET /portal/:media/*',
    ])
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
          if (status < 400) await target.check?.(res)
          if (target.applied) expect(await target.applied(), 'the change is made exactly on success').toBe(status < 400)
        })
      }

      const anonymous = row.anonymous ?? 401
      const issue = row.knownIssues?.anonymous
      const test = issue ? it.fails : it
      test(`anonymous → ${anonymous}${issue ? ` (known issue: ${issue})` : ''}`, async () => {
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
    media: t.media,
    channel: t.channel,
    stream: t.stream,
    resource: t.resource,
    widget: t.widget,
    theme: t.theme,
    behavior: t.behavior,
    webhook: t.webhook,
    delivery: t.delivery,
    job: t.job,
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
  subtitle: SUBTITLE,
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
  media: 'no-such-media',
  channel: 'no-such-channel',
  stream: 'no-such-stream',
  resource: 'no-such-resource',
  widget: 'no-such-widget',
  theme: 'no-such-theme',
  behavior: 'no-such-behavior',
  webhook: 'NoSuchWebhook000',
  delivery: 'NoSuchDelivery00',
  job: '999999999',
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

  /**
   * Lists of the caller's own file store, whoever asks (the rows of `own` and `nobodysFile` test them), and the jobs the
   * caller administers (the row of `/jobs` checks P's job is not in the other tenant's): the other tenant's
   * administrator gets their own, not P's.
   */
  const CALLERS_OWN_LISTS = ['/search/files', '/jobs']

  beforeAll(async () => {
    namesOfP = await w.namesOf(P().platform)
    nobody = await w.clientWith({ profile: [] })
    lists = []
    for (const route of app.kernel.routes.routes) {
      if (route.method !== 'GET' || route.options.public || CALLERS_OWN_LISTS.includes(route.path)) continue
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
        '/platform/:platform/medias',
        '/media/:media/accesses',
        '/media/:media/streams',
        '/stream/:stream/accesses',
        '/stream/:stream/resources',
        '/resource/:resource/accesses',
        '/media/:media/channels',
        '/platform/:platform/player_theme',
        '/platform/:platform/player_behavior',
        '/resource/:resource/widgets',
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
      names: 'username' | 'role' | 'profile' | 'stream' | 'file'
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
      // P's stream as the parent of a stream of Q's media, and P's file published into Q's stream.
      {
        method: 'POST',
        names: 'stream',
        path: () => `/media/${q.media}/streams`,
        form: (name) => ({ title: 'beta-child', visibility: 'visible', parent_stream: name }),
      },
      {
        method: 'POST',
        names: 'file',
        path: () => `/stream/${q.stream}/resources`,
        form: (name) => ({ file: name, title: 'beta-published', visibility: 'visible' }),
      },
    ]
    const real = { username: p.user, role: p.role, profile: p.profile, stream: p.stream, file: p.file }
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
    expect: everyone(200),
    anonymous: 200,
  })
  const page = (route: string, check: (res: Response) => void, withToken = false): Row => ({
    method: 'GET',
    route,
    withRight: nothing,
    without: nothing,
    setup: async () => ({ path: withToken ? `${route}?token=${await uploadToken()}` : route, check }),
    expect: everyone(200),
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
      expect: everyone(201),
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
      expect: everyone(200),
      anonymous: 200,
    },
  ]
}
