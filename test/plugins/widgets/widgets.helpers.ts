import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { AccessEntity, RoleEntity, UserEntity } from '../../../plugins/identity/index.js'
import { StreamEntity } from '../../../plugins/streams/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'

/** A tiny document: stored as is, nothing to encode. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n', 'latin1')

/** What a test resource sits in. */
export interface Place {
  media: string
  stream: string
}

/** Creates a media and a visible stream in it on a platform, as `client`; returns their slugs. */
export async function makePlace(client: DigestClient, name: string, platform = 'default'): Promise<Place> {
  const media = text(
    xmlOf(
      await client.post(`/platform/${platform}/medias`, {
        form: {
          name,
          domain_name: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example.org`,
          contact_email: 'owner@example.org',
        },
      }),
      201,
    ).media.slug,
  )
  const stream = text(
    xmlOf(await client.post(`/media/${media}/streams`, { form: { title: name, visibility: 'visible' } }), 201).stream
      .slug,
  )
  return { media, stream }
}

/** Uploads a tiny document as `client` and returns its slug. */
export async function uploadFile(client: DigestClient, name = 'doc.pdf'): Promise<string> {
  const res = await client.post('/files', multipartRequest([{ name: 'path', filename: name, data: PDF }]))
  return text(xmlOf(res, 200).file.slug)
}

/** Publishes a new file of `client` into a stream (`POST /stream/<slug>/resources`) and returns the resource's slug. */
export async function makeResource(
  client: DigestClient,
  stream: string,
  title: string,
  visibility: 'visible' | 'hidden' | 'draft' = 'visible',
): Promise<string> {
  const file = await uploadFile(client)
  const res = await client.post(`/stream/${stream}/resources`, { form: { file, title, visibility } })
  return text(xmlOf(res, 201).resource.slug)
}

/** Grants a role (by name, on the user's platform) to a user on a stream, with an access row made through the ORM. */
export async function grantOnStream(app: TestApp, username: string, roleName: string, stream: string): Promise<void> {
  const em = app.kernel.em()
  const user = await em.findOneOrFail(UserEntity, { username }, { populate: ['platform'] })
  const role = await em.findOneOrFail(RoleEntity, { name: roleName, platform: user.platform })
  const target = await em.findOneOrFail(StreamEntity, { slug: stream })
  em.create(AccessEntity, {
    publicId: randomBytes(9).toString('base64url').slice(0, 12),
    user,
    group: null,
    objectKind: 'stream',
    objectId: target.id,
    role,
    platform: user.platform,
    createdAt: new Date(),
  })
  await em.flush()
}

/** The slugs of a platform's player themes or behaviors, oldest first. */
export async function playerSlugs(
  client: DigestClient,
  kind: 'player_theme' | 'player_behavior',
  platform = 'default',
): Promise<string[]> {
  const doc = xmlOf(await client.get(`/platform/${platform}/${kind}`), 200)
  return list<XmlObject>(doc[`${kind}s`][kind]).map((node) => text(node.slug))
}

/** The attributes of the one `<iframe ...></iframe>` of an embed code. */
export function iframeAttributes(code: string): Record<string, string> {
  const match = /^<iframe ([^>]*)><\/iframe>$/.exec(code)
  expect(match, code).not.toBeNull()
  const attrs: Record<string, string> = {}
  for (const m of match![1]!.matchAll(/([a-z]+)(?:="([^"]*)")?/g)) attrs[m[1]!] = m[2] ?? ''
  return attrs
}
