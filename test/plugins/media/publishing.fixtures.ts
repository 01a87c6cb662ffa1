import { expect } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { PLUGINS_WITHOUT_PUBLISHING } from '../../helpers/test-kinds.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { userWithProfile } from '../identity/permissions.fixtures.js'
export { DECLARATION, INVALID, expectError, xmlOf } from '../../helpers/answers.js'

/**
 * Shared by the media and streams suites. The app runs the real media and streams plugins on
 * the platform stack, without channels and resources (their own suites cover them): what is
 * tested here is what these two plugins do.
 */
export const PUBLISHING_PLUGINS = [...PLUGINS_WITHOUT_PUBLISHING, 'media', 'streams']

/** The 403 of a missing role flag. */
export const NEEDS_ROLE = (flag: string): string => `This needs the "${flag}" permission.`

/** Starts an app with the media and streams plugins. */
export const startPublishing = (): Promise<TestApp> => startApp({ config: { plugins: PUBLISHING_PLUGINS } })

/** A valid media create form; `overrides` replace or add fields. */
export const mediaForm = (name: string, domain: string, overrides: Record<string, string | number> = {}) => ({
  name,
  domain_name: domain,
  domain,
  contact_email: 'webmaster@example.org',
  ...overrides,
})

/** Creates a media (asserting 201) and returns its slug. */
export async function createMedia(
  client: DigestClient,
  form: Record<string, string | number>,
  platform = 'default',
): Promise<string> {
  return text(xmlOf(await client.post(`/platform/${platform}/medias`, { form }), 201).media.slug)
}

/** Creates a stream (asserting 201) and returns its slug. */
export async function createStream(
  client: DigestClient,
  media: string,
  title: string,
  form: Record<string, string> = {},
): Promise<string> {
  const res = await client.post(`/media/${media}/streams`, { form: { title, visibility: 'visible', ...form } })
  return text(xmlOf(res, 201).stream.slug)
}

/**
 * Creates a role through the API (`permission[<Model>][<action>]=1` for each `model.action`)
 * and returns its slug.
 */
export async function createRole(app: TestApp, name: string, flags: string[], platform = 'default'): Promise<string> {
  const form: Record<string, string> = { name }
  for (const flag of flags) {
    const [model, action] = flag.split('.') as [string, string]
    form[`permission[${model.charAt(0).toUpperCase()}${model.slice(1)}][${action}]`] = '1'
  }
  return text(xmlOf(await app.client.post(`/platform/${platform}/roles`, { form }), 201).role.slug)
}

/** Grants a role on an object (`media`, `stream`, `platform`) through the API, as the administrator. */
export async function grant(app: TestApp, username: string, kind: string, slug: string, role: string): Promise<void> {
  const res = await app.client.post(`/user/${username}/accesses`, { form: { [kind]: slug, role } })
  expect(res.status, res.body).toBe(201)
}

/** A user with the default Viewer profile (platform.view, user.view, group.view) and no access. */
export const viewer = (app: TestApp, username: string): Promise<DigestClient> =>
  userWithProfile(app, username, 'default-viewer')

/** The `[kind, slug]` of the object of every access in a list answer. */
export function accessObjects(res: Response): [string, string][] {
  expect(res.status, res.body).toBe(200)
  return list<XmlObject>(parseXml(res.body).accesses.access).map((access) => {
    const kind = Object.keys(access).find((key) => !['@href', 'user', 'group', 'role'].includes(key))!
    return [kind, String(access[kind]['@href']).split('/').at(-1)!]
  })
}

/** The slugs of a list answer (`medias` of `media`, `streams` of `stream`), asserting the status. */
export function slugsIn(res: Response, plural: string, singular: string): string[] {
  return list<XmlObject>(xmlOf(res, 200)[plural][singular]).map((node) => text(node.slug))
}

/** The media hrefs of the root answer. */
export function rootMedia(res: Response): string[] {
  const services = xmlOf(res, 200).services as XmlObject
  return list<XmlObject>(services.media).map((link) => String(link['@href']))
}
