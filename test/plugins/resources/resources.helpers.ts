import { expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { PDF, upload } from '../files/files.helpers.js'
import { userWithProfile } from '../identity/permissions.fixtures.js'
export { DECLARATION, INVALID, NEEDS, XML_TYPE, expectError, xmlOf } from '../../helpers/answers.js'
export { userWithProfile }

/** The 403 of a missing role flag (a flag of an access's role). */
export const NEEDS_ROLE = (flag: string): string => `This needs the "${flag}" permission.`
export const NO_RESOURCE = (slug: string): string => `No resource "${slug}".`
export const NO_STREAM = (slug: string): string => `No stream "${slug}".`

/** The elements of a resource info answer (create, info, update), attributes included, sorted. */
export const INFO_KEYS = [
  '@href',
  'accesses',
  'description',
  'duration',
  'file',
  'flavors',
  'metadata',
  'players',
  'published_at',
  'slug',
  'stream',
  'sub_title',
  'subtitle',
  'subtitles',
  'thumbnail',
  'title',
  'views',
  'visibility',
  'widgets',
]

/** The elements of a resource in a list: what the real answers show, so no accesses, players or widgets. */
export const LIST_KEYS = INFO_KEYS.filter((key) => !['accesses', 'players', 'widgets'].includes(key))

/** Where test resources are published: a media and a stream in it. */
export interface Place {
  media: string
  stream: string
}

/** Creates a media (its default channels: web and widget) as `client`; returns its slug. */
export async function createMedia(client: DigestClient, name: string, platform = 'default'): Promise<string> {
  // Domains are unique across the installation: one per media name.
  const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example.org`
  const res = await client.post(`/platform/${platform}/medias`, {
    form: { name, domain_name: domain, domain, contact_email: 'tv@example.org' },
  })
  return text(xmlOf(res, 201).media.slug)
}

/** Creates a stream (visible unless told) in a media as `client`; returns its slug. */
export async function createStream(
  client: DigestClient,
  media: string,
  title: string,
  form: Record<string, string> = {},
): Promise<string> {
  const res = await client.post(`/media/${media}/streams`, { form: { title, visibility: 'visible', ...form } })
  return text(xmlOf(res, 201).stream.slug)
}

/** A media and a visible stream in it, both named `name`. */
export async function makePlace(client: DigestClient, name: string, platform = 'default'): Promise<Place> {
  const media = await createMedia(client, name, platform)
  return { media, stream: await createStream(client, media, name) }
}

/** Uploads a small PDF (a document: nothing to encode) as `client`; returns the file's slug. */
export async function uploadDocument(client: DigestClient, name = 'paper.pdf'): Promise<string> {
  const res = await upload(client, PDF, { filename: name })
  return text(xmlOf(res, 200).file.slug)
}

/** `POST /stream/<slug>/resources` with a form. */
export const publish = (
  client: DigestClient,
  stream: string,
  form: Record<string, string | number>,
): Promise<Response> => client.post(`/stream/${stream}/resources`, { form })

/** The `resource` element of an answer, once its status, headers and root are checked. */
export function resourceOf(res: Response, status: number): XmlObject {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((key) => key !== '?xml')).toEqual(['resource'])
  return doc.resource as XmlObject
}

/** Publishes (asserting 201) and returns the resource's slug. */
export async function published(
  client: DigestClient,
  stream: string,
  form: Record<string, string | number>,
): Promise<string> {
  return text(resourceOf(await publish(client, stream, form), 201).slug)
}

/** The `resource` entries of a list answer (asserting 200). */
export function entriesOf(res: Response): XmlObject[] {
  const doc = xmlOf(res, 200)
  expect(Object.keys(doc).filter((key) => key !== '?xml')).toEqual(['resources'])
  return list<XmlObject>(doc.resources.resource)
}

/** The slugs a user sees in a stream's list. */
export async function listedSlugs(client: DigestClient, stream: string): Promise<string[]> {
  return entriesOf(await client.get(`/stream/${stream}/resources`)).map((node) => text(node.slug))
}

/** `[name, URL]` of each flavor of a resource element. */
export const flavorsOf = (node: XmlObject): [string, string][] =>
  list<XmlObject>(node.flavors?.flavor).map((flavor) => [flavor['@name'] as string, text(flavor)])

/** `[name, URL]` of each player of a resource element. */
export const playersOf = (node: XmlObject): [string, string][] =>
  list<XmlObject>(node.players?.player).map((player) => [player['@name'] as string, text(player)])

/**
 * Creates a role through the API (`permission[<Model>][<action>]=1` for each `model.action`) as
 * the installation administrator; returns its slug.
 */
export async function createRole(app: TestApp, name: string, flags: string[], platform = 'default'): Promise<string> {
  const form: Record<string, string> = { name }
  for (const flag of flags) {
    const [model, action] = flag.split('.') as [string, string]
    form[`permission[${model.charAt(0).toUpperCase()}${model.slice(1)}][${action}]`] = '1'
  }
  return text(xmlOf(await app.client.post(`/platform/${platform}/roles`, { form }), 201).role.slug)
}

/**
 * Creates a profile through the API (`permission[<Model>][<action>]=1`, models as the spec names
 * them: `File`, `Platform`, ...) as the installation administrator; returns its slug.
 */
export async function createProfile(
  app: TestApp,
  name: string,
  flags: string[],
  platform = 'default',
): Promise<string> {
  const form: Record<string, string> = { name, quota: '0' }
  for (const flag of flags) {
    const [model, action] = flag.split('.') as [string, string]
    form[`permission[${model.charAt(0).toUpperCase()}${model.slice(1)}][${action}]`] = '1'
  }
  return text(xmlOf(await app.client.post(`/platform/${platform}/profiles`, { form }), 201).profile.slug)
}

/** Grants a role on an object (`stream`, `resource`, `media`) through the API, as the administrator; answers the access id. */
export async function grant(app: TestApp, username: string, kind: string, slug: string, role: string): Promise<string> {
  const res = await app.client.post(`/user/${username}/accesses`, { form: { [kind]: slug, role } })
  expect(res.status, res.body).toBe(201)
  const accesses = list<XmlObject>(xmlOf(res, 201).accesses.access)
  return String(accesses.at(-1)!['@href']).split('/').at(-1)!
}

/** The `[kind, slug]` of the object of each access in an access list answer (asserting 200). */
export function accessObjects(res: Response): [string, string][] {
  return list<XmlObject>(xmlOf(res, 200).accesses.access).map((access) => {
    const kind = Object.keys(access).find((key) => !['@href', 'user', 'group', 'role'].includes(key))!
    return [kind, String(access[kind]['@href']).split('/').at(-1)!]
  })
}

/** Rows of a table matching a where clause (`resources`, `widgets`, `accesses`). */
export async function countRows(app: TestApp, table: string, where = '1 = 1', params: unknown[] = []): Promise<number> {
  const rows = await app.kernel
    .em()
    .execute<{ n: number | string }[]>(`select count(*) as n from ${table} where ${where}`, params)
  return Number(rows[0]!.n)
}
