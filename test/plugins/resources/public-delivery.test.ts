import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import {
  type BytesResponse,
  digestBytes,
  getBytes,
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from '../encoding/encoding.helpers.js'
import { type Place, createStream, flavorsOf, makePlace, published, resourceOf, xmlOf } from './resources.helpers.js'

const SRT = '1\n00:00:00,000 --> 00:00:01,000\nBonjour\n\n'

/**
 * The media of a published resource (visible, in visible streams, in a media with an online
 * channel) are served without credentials, as the original service's clients expect: they hand
 * thumbnail, flavor and subtitle URLs to browsers, and fetch WebVTT themselves. Anything else
 * still needs Digest or a token, and stops being public at once.
 */
describe('public delivery of published resources', () => {
  let app: TestApp
  let admin: DigestClient
  let file: string
  let place: Place
  let other: DigestClient

  /** The media URLs of a resource (paths), as its info gives them to its Digest owner. */
  async function assets(slug: string): Promise<Record<string, string>> {
    const info = resourceOf(await admin.get(`/resource/${slug}`), 200)
    const flavors = Object.fromEntries(flavorsOf(info))
    return {
      thumbnail: pathOf(text(info.thumbnail)),
      flavor: pathOf(flavors['240p']!),
      hls: pathOf(flavors.hls!),
      subtitle: pathOf(list<XmlObject>(info.subtitles.subtitle)[0]!['@href'] as string),
    }
  }

  /** Each asset fetched without credentials: path → status. */
  async function anonymousStatuses(paths: Record<string, string>): Promise<Record<string, number>> {
    const out: Record<string, number> = {}
    for (const [name, path] of Object.entries(paths)) out[name] = (await getBytes(app.url, path)).status
    return out
  }
  const all = (status: number) => ({ thumbnail: status, flavor: status, hls: status, subtitle: status })

  beforeAll(async () => {
    app = await startEncodingApp()
    admin = app.client
    file = await uploadMedia(admin, await makeMedia('video', { seconds: 2 }), 'lecture.mp4')
    expect((await waitForStatus(admin, file)).at(-1)!.status).toBe('finished')
    const subtitle = multipartRequest([
      { name: 'language', value: 'fr' },
      { name: 'subtitle', filename: 'lecture.srt', data: Buffer.from(SRT) },
    ])
    expect((await admin.post(`/file/${file}/subtitles`, subtitle)).status).toBe(201)
    place = await makePlace(admin, 'Open Campus')
    expect((await admin.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    other = await app.createUser({ username: 'stranger', platform: 'elsewhere', admin: false })
  })
  afterAll(async () => app?.close())

  it('serves thumbnail, flavors (with ranges), HLS and subtitles without credentials, cacheable by shared caches', async () => {
    const slug = await published(admin, place.stream, { file, title: 'Open talk', visibility: 'visible' })
    const paths = await assets(slug)
    expect(await anonymousStatuses(paths)).toEqual(all(200))
    const part = await getBytes(app.url, paths.flavor!, { range: 'bytes=0-99' })
    expect([part.status, part.body.length, part.headers['cache-control']]).toEqual([206, 100, 'public, max-age=300'])
    const subtitle = await getBytes(app.url, paths.subtitle!)
    expect(subtitle.body.toString()).toMatch(/^WEBVTT/)
    expect(subtitle.headers['cache-control']).toBe('public, max-age=300')
    // The master playlist names variants the player fetches the same way, without credentials.
    const master = (await getBytes(app.url, paths.hls!)).body.toString()
    const variant = master.split('\n').find((line) => line.endsWith('.m3u8'))!
    const variantPath = new URL(variant, `${app.url}${paths.hls}`).pathname
    const playlist = await getBytes(app.url, variantPath)
    expect(playlist.status).toBe(200)
    const segment = playlist.body
      .toString()
      .split('\n')
      .find((line) => line.endsWith('.ts'))!
    expect((await getBytes(app.url, new URL(segment, `${app.url}${variantPath}`).pathname)).status).toBe(200)
    // The owner with Digest gets the same bytes, privately cached.
    const owned = await digestBytes(admin, paths.thumbnail!)
    expect([owned.status, owned.headers['cache-control']]).toEqual([200, 'private, max-age=86400'])
    // The uploaded original is never public.
    expect((await getBytes(app.url, `/resource/${slug}/source`)).status).toBe(401)
  })

  it('hiding, drafting or deleting the resource stops anonymous delivery at once', async () => {
    const slug = await published(admin, place.stream, { file, title: 'Soon hidden', visibility: 'visible' })
    const paths = await assets(slug)
    expect(await anonymousStatuses(paths)).toEqual(all(200))
    for (const visibility of ['hidden', 'draft']) {
      expect((await admin.put(`/resource/${slug}`, { form: { visibility } })).status).toBe(200)
      expect(await anonymousStatuses(paths), visibility).toEqual(all(401))
      const refused = await getBytes(app.url, paths.thumbnail!)
      expect(String(refused.headers['www-authenticate'])).toMatch(/^Digest /)
      // Credentials (and tokens) still open it.
      expect((await digestBytes(admin, paths.thumbnail!)).status).toBe(200)
    }
    expect((await admin.put(`/resource/${slug}`, { form: { visibility: 'visible' } })).status).toBe(200)
    expect(await anonymousStatuses(paths)).toEqual(all(200))
    expect((await admin.delete(`/resource/${slug}`)).status).toBe(204)
    expect(await anonymousStatuses(paths)).toEqual(all(401))
  })

  it('a hidden stream above, or no online channel on the media, keeps the media private', async () => {
    const parent = await createStream(admin, place.media, 'Backstage')
    const slug = await published(admin, parent, { file, title: 'Backstage talk', visibility: 'visible' })
    const paths = await assets(slug)
    expect(await anonymousStatuses(paths)).toEqual(all(200))
    expect((await admin.put(`/stream/${parent}`, { form: { visibility: 'hidden' } })).status).toBe(201)
    expect(await anonymousStatuses(paths)).toEqual(all(401))
    expect((await admin.put(`/stream/${parent}`, { form: { visibility: 'visible' } })).status).toBe(201)

    const channels = list<XmlObject>(xmlOf(await admin.get(`/media/${place.media}/channels`), 200).channels.channel)
    const slugs = channels.map((channel) => text(channel.slug))
    const setOnline = async (online: boolean) => {
      for (const channel of slugs) {
        const res = await admin.put(`/media/${place.media}/channel/${channel}`, { form: { is_online: online ? 1 : 0 } })
        expect(res.status).toBe(201)
      }
    }
    await setOnline(false)
    try {
      expect(await anonymousStatuses(paths)).toEqual(all(401))
    } finally {
      await setOnline(true)
    }
    expect(await anonymousStatuses(paths)).toEqual(all(200))
  })

  it('private files stay private: their own media URLs need credentials or a token', async () => {
    const paths = [`/file/${file}/thumbnail/thumb.jpg`, `/file/${file}/flavor/video/240p.mp4`]
    for (const path of paths) {
      const res: BytesResponse = await getBytes(app.url, path)
      expect([path, res.status]).toEqual([path, 401])
    }
  })

  it('reveals nothing without credentials: an unknown resource answers as a private one, 401', async () => {
    for (const path of ['/resource/no-such/thumbnail/thumb.jpg', '/resource/no-such/subtitles/x.fr.srt']) {
      const res = await getBytes(app.url, path)
      expect([path, res.status]).toEqual([path, 401])
    }
  })

  it("another platform's user with credentials gets 404 for a private resource, as for a missing one", async () => {
    const slug = await published(admin, place.stream, { file, title: 'In house', visibility: 'hidden' })
    const paths = await assets(slug)
    expect(await anonymousStatuses(paths)).toEqual(all(401))
    const res = await digestBytes(other, paths.thumbnail!)
    expect(res.status).toBe(404)
  })
})

describe('public delivery switched off (resources.public_assets: false)', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startEncodingApp({ config: { resources: { public_assets: false } } })
  })
  afterAll(async () => app?.close())

  it('needs credentials or a token for every asset, published or not', async () => {
    const admin = app.client
    const file = await uploadMedia(admin, await makeMedia('video', { seconds: 1 }), 'clip.mp4')
    expect((await waitForStatus(admin, file)).at(-1)!.status).toBe('finished')
    const place = await makePlace(admin, 'Closed Campus')
    const slug = await published(admin, place.stream, { file, title: 'Closed', visibility: 'visible' })
    const info = resourceOf(await admin.get(`/resource/${slug}`), 200)
    const thumbnail = pathOf(text(info.thumbnail))
    const refused = await getBytes(app.url, thumbnail)
    expect([refused.status, String(refused.headers['www-authenticate']).startsWith('Digest ')]).toEqual([401, true])
    const tokened = resourceOf(await admin.get(`/resource/${slug}?with-token=1`), 200)
    const byToken = await getBytes(app.url, pathOf(text(tokened.thumbnail)))
    expect([byToken.status, byToken.headers['cache-control']]).toEqual([200, 'private, max-age=86400'])
  })
})
