import { expect } from 'vitest'
import { type Profile, ProfileEntity, type User, UserEntity, createUser } from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
export { DECLARATION, INVALID, NEEDS, XML_TYPE, expectError, xmlOf } from '../../helpers/answers.js'

/** The 403 of a missing profile flag. */
export const NO_USER = (username: string): string => `No user "${username}".`
export const NO_PLATFORM = (slug: string): string => `No platform "${slug}".`

/** What a user's info should show; absent optional fields are expected empty. */
export interface ExpectedUser {
  username: string
  email: string
  profile: string
  platform?: string
  firstName?: string
  lastName?: string
  telephone?: string
  address?: string
  city?: string
  zipcode?: string
  /** The English name shown. */
  country?: string
  /** The English name shown. */
  language?: string
  isActive?: boolean
}

const INFO_KEYS = [
  '@href',
  'accesses',
  'address',
  'city',
  'country',
  'email',
  'first_name',
  'is_active',
  'language',
  'last_name',
  'platform',
  'profile',
  'telephone',
  'username',
  'zipcode',
]

/** User info (create, info, update answers): every field but the password, and the three links. */
export function expectUserInfo(app: TestApp, res: Response, status: number, u: ExpectedUser): void {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['user'])
  const node = doc.user as XmlObject
  expect(Object.keys(node).sort()).toEqual(INFO_KEYS)
  expect(node['@href']).toBe(`${app.url}/user/${u.username}`)
  expect(text(node.username)).toBe(u.username)
  expect(text(node.email)).toBe(u.email)
  expect(text(node.first_name)).toBe(u.firstName ?? '')
  expect(text(node.last_name)).toBe(u.lastName ?? '')
  expect(text(node.telephone)).toBe(u.telephone ?? '')
  expect(text(node.address)).toBe(u.address ?? '')
  expect(text(node.city)).toBe(u.city ?? '')
  expect(text(node.zipcode)).toBe(u.zipcode ?? '')
  expect(text(node.country)).toBe(u.country ?? '')
  expect(text(node.language)).toBe(u.language ?? '')
  expect(text(node.is_active)).toBe(u.isActive === false ? '0' : '1')
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${u.platform ?? 'default'}` })
  expect(node.profile).toEqual({ '@href': `${app.url}/profile/${u.profile}` })
  expect(node.accesses).toEqual({ '@href': `${app.url}/user/${u.username}/accesses` })
  // Strings are CDATA, is_active plain text, and nothing says "password".
  expect(res.body).toContain(`<username><![CDATA[${u.username}]]></username>`)
  expect(res.body).toContain(`<is_active>${u.isActive === false ? 0 : 1}</is_active>`)
  expect(res.body).not.toMatch(/password|scrypt/i)
}

/** A `user` entry of a list: exactly href, username, first_name, last_name, email, is_active. */
export function expectSummary(app: TestApp, node: XmlObject, u: ExpectedUser): void {
  expect(Object.keys(node).sort()).toEqual(['@href', 'email', 'first_name', 'is_active', 'last_name', 'username'])
  expect(node['@href']).toBe(`${app.url}/user/${u.username}`)
  expect(text(node.username)).toBe(u.username)
  expect(text(node.first_name)).toBe(u.firstName ?? '')
  expect(text(node.last_name)).toBe(u.lastName ?? '')
  expect(text(node.email)).toBe(u.email)
  expect(text(node.is_active)).toBe(u.isActive === false ? '0' : '1')
}

/** The usernames of a platform's user list (asserting 200). */
export async function usernamesOf(client: DigestClient, platform = 'default'): Promise<string[]> {
  const doc = xmlOf(await client.get(`/platform/${platform}/users`), 200)
  return list<XmlObject>(doc.users.user).map((u) => text(u.username))
}

/** Creates a profile directly (the profile endpoints belong to another suite). */
export async function makeProfile(
  app: TestApp,
  slug: string,
  permissions: string[],
  platformSlug = 'default',
): Promise<Profile> {
  const em = app.kernel.em()
  const platform = await em.findOneOrFail(PlatformEntity, { slug: platformSlug })
  const profile = em.create(ProfileEntity, { slug, name: slug, quota: 0, permissions, platform, createdAt: new Date() })
  await em.flush()
  return profile
}

/** Creates a user with a profile (by slug) through the service, and returns its Digest client. */
export async function userWithProfile(
  app: TestApp,
  username: string,
  profileSlug: string,
  options: { platform?: string; password?: string } = {},
): Promise<DigestClient> {
  const em = app.kernel.em()
  const platform = await em.findOneOrFail(PlatformEntity, { slug: options.platform ?? 'default' })
  const profile = await em.findOneOrFail(ProfileEntity, { slug: profileSlug })
  const { apiKey } = await createUser(em, {
    platform,
    profile,
    username,
    email: `${username}@example.org`,
    password: options.password,
    realm: app.kernel.config.auth.realm,
  })
  return app.clientFor(username, apiKey)
}

/** The stored user row (fresh read). */
export function storedUser(app: TestApp, username: string): Promise<User | null> {
  return app.kernel.em().findOne(UserEntity, { username }, { populate: ['profile', 'platform'] })
}
