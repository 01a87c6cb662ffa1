import { tokensWith } from '../../../src/kernel/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resourceToken } from '../../../plugins/resources/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import {
  digestBytes,
  ffprobe,
  getBytes,
  makeMedia,
  pathOf,
  sha1,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from '../encoding/encoding.helpers.js'
import {
  NO_RESOURCE,
  type Place,
  entriesOf,
  expectError,
  flavorsOf,
  makePlace,
  playersOf,
  published,
  resourceOf,
  xmlOf,
} from './resources.helpers.js'

const SRT = '1\n00:00:00,000 --> 00:00:01,000\nBonjour\n\n2\n00:00:01,000 --> 00:00:01,900\nAu revoir\n'

const NOT_VALID = 'The token of this link is not valid: fetch a new link (with-token) or use Digest credentials.'
const OTHER_RESOURCE = 'The token of this link opens another resource: fetch the links of this resource (with-token).'

/** The `token` query parameter of a URL. */
const tokenOf = (url: string): string | null => new URL(url).searchParams.get('token')

/**
 * One two-second video, encoded once, published twice into a media whose channels the tests
 * switch: the flavors a resource offers follow its media's online channels; its media are
 * served under its own address, with Digest or with the token of a `with-token` answer.
 */
describe('resource media: flavors by channel, delivery, tokens', () => {
  let app: TestApp
  let admin: DigestClient
  let video: Buffer
  let file: string
  let place: Place
  let talk: string
  let other: string

  const info = async (slug: string, query = '') => resourceOf(await admin.get(`/resource/${slug}${query}`), 200)
  const setOnline = async (channel: string, online: boolean) => {
    const res = await admin.put(`/media/${place.media}/channel/${channel}`, { form: { is_online: online ? '1' : '0' } })
    // The spec answers a channel update with 201.
    expect(text(xmlOf(res, 201).channel.is_online)).toBe(String(online))
  }
  const addChannel = async (name: string, type: string): Promise<string> => {
    const res = await admin.post(`/media/${place.media}/channels`, { form: { name, type } })
    return text(xmlOf(res, 201).channel.slug)
  }
  const url = (slug: string, path: string) => `${app.url}/resource/${slug}/${path}`

  beforeAll(async () => {
    app = await startEncodingApp()
    admin = app.client
    video = await makeMedia('video', { seconds: 2 })
    file = await uploadMedia(admin, video, 'lecture.mp4')
    expect((await waitForStatus(admin, file)).at(-1)!.status).toBe('finished')
    const subtitle = multipartRequest([
      { name: 'language', value: 'fr' },
      { name: 'subtitle', filename: 'lecture.srt', data: Buffer.from(SRT) },
    ])
    expect((await admin.post(`/file/${file}/subtitles`, subtitle)).status).toBe(201)
    place = await makePlace(admin, 'Campus TV')
    talk = await published(admin, place.stream, { file, title: 'Talk', visibility: 'visible' })
    other = await published(admin, place.stream, { file, title: 'Other talk', visibility: 'visible' })
  })
  afterAll(async () => app?.close())

  describe('flavors follow the online channels of the media', () => {
    it('default channels (web, widget): the MP4 ladder largest first, then hls, and a player', async () => {
      const node = await info(talk)
      expect(flavorsOf(node)).toEqual([
        ['240p', url(talk, 'flavor/video/240p.mp4')],
        ['120p', url(talk, 'flavor/video/120p.mp4')],
        ['hls', url(talk, 'hls/master.m3u8')],
      ])
      expect(playersOf(node)).toEqual([['default', `${app.url}/player/${talk}`]])
      expect(Number(text(node.duration))).toBeGreaterThan(1.5)
      expect(Number(text(node.duration))).toBeLessThan(2.5)
      expect(text(node.views)).toBe('0')
      expect(text(node.thumbnail)).toMatch(new RegExp(`^${url(talk, 'thumbnail/thumb.jpg')}(\\?v=\\d+)?$`))
      const [subtitle] = list<XmlObject>(node.subtitles.subtitle)
      expect(subtitle).toEqual({ '@language': 'fr', '@href': url(talk, `subtitles/${sha1(Buffer.from(SRT))}.fr.srt`) })
      // Lists carry the same flavors and subtitles (the real answers do), but no players.
      const entry = entriesOf(await admin.get(`/stream/${place.stream}/resources`)).find((n) => text(n.slug) === talk)!
      expect(flavorsOf(entry)).toEqual(flavorsOf(node))
      expect(entry.subtitles).toEqual(node.subtitles)
      expect(entry.players).toBeUndefined()
    })

    it('each URL serves its media with Digest: H.264 MP4 flavors, the HLS master, a JPEG thumbnail, WebVTT subtitles', async () => {
      const node = await info(talk)
      for (const [name, flavorUrl] of flavorsOf(node).filter(([name]) => name !== 'hls')) {
        const res = await digestBytes(admin, pathOf(flavorUrl))
        expect([name, res.status, res.headers['content-type']]).toEqual([name, 200, 'video/mp4'])
        expect((await ffprobe(res.body)).streams.map((s) => s.codec_name)).toContain('h264')
      }
      const master = await digestBytes(admin, pathOf(url(talk, 'hls/master.m3u8')))
      expect([master.status, master.headers['content-type']]).toEqual([200, 'application/vnd.apple.mpegurl'])
      expect(master.body.toString()).toMatch(/^#EXTM3U/)
      const thumbnail = await digestBytes(admin, pathOf(text(node.thumbnail)))
      expect([thumbnail.status, thumbnail.headers['content-type']]).toEqual([200, 'image/jpeg'])
      expect(thumbnail.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
      const vtt = await digestBytes(admin, pathOf(list<XmlObject>(node.subtitles.subtitle)[0]!['@href']))
      expect([vtt.status, vtt.headers['content-type']]).toEqual([200, 'text/vtt; charset=utf-8'])
      expect(vtt.body.toString()).toMatch(/^WEBVTT/)
      expect(vtt.body.toString()).toContain('00:00:01.000 --> 00:00:01.900')
      expectError(
        await admin.get(`/resource/${talk}/flavor/video/999p.mp4`),
        404,
        'This file has no video flavor "999p".',
      )
      expectError(await admin.get(`/resource/${talk}/subtitles/nope.fr.srt`), 404, 'No subtitle "nope.fr.srt".')
      expectError(
        await admin.get('/resource/no-such-resource/thumbnail/thumb.jpg'),
        404,
        NO_RESOURCE('no-such-resource'),
      )
    })

    it('taking web offline removes the ladder and hls; with widget offline too, no flavor and no player', async () => {
      await setOnline(`${place.media}-web`, false)
      let node = await info(talk)
      expect([flavorsOf(node), playersOf(node)]).toEqual([[], [['default', `${app.url}/player/${talk}`]]])
      await setOnline(`${place.media}-widget`, false)
      node = await info(talk)
      expect([flavorsOf(node), playersOf(node)]).toEqual([[], []])
      expect(node.flavors).toBe('')
      expect(node.players).toBe('')
    })

    it('an api channel offers source (the original, as an attachment) and every flavor; no player', async () => {
      const api = await addChannel('Partners API', 'api')
      const node = await info(talk)
      expect(flavorsOf(node)).toEqual([
        ['source', url(talk, 'source')],
        ['240p', url(talk, 'flavor/video/240p.mp4')],
        ['120p', url(talk, 'flavor/video/120p.mp4')],
      ])
      expect(playersOf(node)).toEqual([])
      const source = await digestBytes(admin, pathOf(url(talk, 'source')))
      expect(source.status).toBe(200)
      expect(source.headers['content-disposition']).toBe(
        `attachment; filename="lecture.mp4"; filename*=UTF-8''lecture.mp4`,
      )
      expect(source.headers['content-type']).toBe('video/mp4')
      expect(sha1(source.body)).toBe(sha1(video))
      const part = await digestBytes(admin, pathOf(url(talk, 'source')), { range: 'bytes=0-9' })
      expect([part.status, part.body]).toEqual([206, video.subarray(0, 10)])
      // Offline, the original is no longer offered, nor served.
      await setOnline(api, false)
      expect(flavorsOf(await info(talk))).toEqual([])
      expectError(
        await admin.get(`/resource/${talk}/source`),
        404,
        `Resource "${talk}" offers no source: no online channel of its media (an api channel) offers it.`,
      )
      await setOnline(api, true)
    })

    it('a syndication channel offers download: the largest MP4 no taller than 720 pixels', async () => {
      await addChannel('Podcast feed', 'syndication')
      expect(flavorsOf(await info(talk))).toEqual([
        ['source', url(talk, 'source')],
        ['240p', url(talk, 'flavor/video/240p.mp4')],
        ['120p', url(talk, 'flavor/video/120p.mp4')],
        ['download', url(talk, 'flavor/video/240p.mp4')],
      ])
    })

    it('back online, web comes first (oldest channel first), each name once', async () => {
      await setOnline(`${place.media}-web`, true)
      await setOnline(`${place.media}-widget`, true)
      const node = await info(talk)
      expect(flavorsOf(node).map(([name]) => name)).toEqual(['240p', '120p', 'hls', 'source', 'download'])
      expect(playersOf(node)).toEqual([['default', `${app.url}/player/${talk}`]])
    })
  })

  describe('with-token', () => {
    let tokened: XmlObject

    beforeAll(async () => {
      tokened = await info(talk, '?with-token=1')
    })

    it('every asset URL carries the same token; the plain answer carries none', async () => {
      const urls = [
        text(tokened.thumbnail),
        ...flavorsOf(tokened).map(([, flavorUrl]) => flavorUrl),
        ...playersOf(tokened).map(([, playerUrl]) => playerUrl),
        ...list<XmlObject>(tokened.subtitles.subtitle).map((s) => s['@href'] as string),
      ]
      expect(urls).toHaveLength(8)
      const token = tokenOf(urls[0]!)
      expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      for (const assetUrl of urls) expect([assetUrl, tokenOf(assetUrl)]).toEqual([assetUrl, token])
      expect((await admin.get(`/resource/${talk}`)).body).not.toContain('token=')
      // `with-token=0` is no request for tokens.
      expect((await admin.get(`/resource/${talk}?with-token=0`)).body).not.toContain('token=')
      // Lists too.
      const entry = entriesOf(await admin.get(`/stream/${place.stream}/resources?with-token=1`)).find(
        (n) => text(n.slug) === talk,
      )!
      expect(flavorsOf(entry).every(([, flavorUrl]) => tokenOf(flavorUrl) === token)).toBe(true)
    })

    it('the URLs work without credentials: thumbnail, a flavor with a byte range (206), subtitles, source', async () => {
      const thumbnail = await getBytes(app.url, pathOf(text(tokened.thumbnail)))
      expect([thumbnail.status, thumbnail.headers['content-type']]).toEqual([200, 'image/jpeg'])
      const flavors = Object.fromEntries(flavorsOf(tokened))
      const full = await getBytes(app.url, pathOf(flavors['240p']!))
      expect(full.status).toBe(200)
      const part = await getBytes(app.url, pathOf(flavors['240p']!), { range: 'bytes=100-199' })
      expect([part.status, part.headers['content-range'], part.body]).toEqual([
        206,
        `bytes 100-199/${full.body.length}`,
        full.body.subarray(100, 200),
      ])
      const subtitle = await getBytes(app.url, pathOf(list<XmlObject>(tokened.subtitles.subtitle)[0]!['@href']))
      expect([subtitle.status, subtitle.body.toString().startsWith('WEBVTT')]).toEqual([200, true])
      const source = await getBytes(app.url, pathOf(flavors.source!))
      expect([source.status, sha1(source.body)]).toEqual([200, sha1(video)])
      // The same paths without the token: the flavor of a published resource is a public asset; the
      // uploaded original never is (a Digest challenge).
      const bare = await getBytes(app.url, new URL(flavors['240p']!).pathname)
      expect([bare.status, bare.headers['cache-control']]).toEqual([200, 'public, max-age=300'])
      expect(full.headers['cache-control']).toBe('private, max-age=3600')
      const bareSource = await getBytes(app.url, new URL(flavors.source!).pathname)
      expect(bareSource.status).toBe(401)
      expect(String(bareSource.headers['www-authenticate'])).toMatch(/^Digest /)
    })

    it('HLS: the master and variant playlists put the token in every URI; a segment plays without credentials', async () => {
      const token = tokenOf(text(tokened.thumbnail))!
      const master = await getBytes(app.url, pathOf(Object.fromEntries(flavorsOf(tokened)).hls!))
      expect(master.status).toBe(200)
      const variants = master.body
        .toString()
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
      expect(variants.length).toBeGreaterThan(0)
      for (const uri of variants) expect(new URL(uri, 'http://x/').searchParams.get('token')).toBe(token)
      const variantUrl = new URL(variants[0]!, `${app.url}/resource/${talk}/hls/master.m3u8`)
      const playlist = await getBytes(app.url, variantUrl.pathname + variantUrl.search)
      expect(playlist.status).toBe(200)
      const segments = playlist.body
        .toString()
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
      expect(segments.length).toBeGreaterThan(0)
      for (const uri of segments) expect(new URL(uri, 'http://x/').searchParams.get('token')).toBe(token)
      const segmentUrl = new URL(segments[0]!, variantUrl)
      const segment = await getBytes(app.url, segmentUrl.pathname + segmentUrl.search)
      expect(segment.status).toBe(200)
      expect(segment.body.length).toBeGreaterThan(0)
    })

    it("a token of resource A on resource B's URL: 403", async () => {
      const token = tokenOf(text(tokened.thumbnail))!
      const res = await admin.get(`/resource/${other}/thumbnail/thumb.jpg?token=${token}`)
      expectError(res, 403, OTHER_RESOURCE)
      expectError(await admin.get(`/resource/${other}/flavor/video/240p.mp4?token=${token}`), 403, OTHER_RESOURCE)
    })

    it('a tampered token, or a file media token, is refused (401 with a Digest challenge)', async () => {
      const token = tokenOf(text(tokened.thumbnail))!
      const [body, signature] = token.split('.') as [string, string]
      // Another resource id in the body, the signature kept.
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>
      const forgedBody = Buffer.from(JSON.stringify({ ...payload, s: other })).toString('base64url')
      const flipped = `${body}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
      for (const bad of [`${forgedBody}.${signature}`, flipped, 'garbage', '']) {
        const res = await getBytes(app.url, `/resource/${other}/thumbnail/thumb.jpg?token=${encodeURIComponent(bad)}`)
        expect([bad, res.status]).toEqual([bad, 401])
        expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
        expectError({ ...res, body: res.body.toString() }, 401, NOT_VALID)
      }
      const fileInfo = xmlOf(await admin.get(`/file/${file}?with-token=1`), 200).file as XmlObject
      const fileToken = tokenOf(text(fileInfo.thumbnail))
      expect(fileToken).toBeTruthy()
      // It opens the file's own URL...
      expect((await getBytes(app.url, pathOf(text(fileInfo.thumbnail)))).status).toBe(200)
      // ...not a resource publishing that file.
      const res = await getBytes(app.url, `/resource/${talk}/thumbnail/thumb.jpg?token=${fileToken}`)
      expectError({ ...res, body: res.body.toString() }, 401, NOT_VALID)
    })

    it('an expired token: 403 asking for a new link; a token of a deleted resource: 404', async () => {
      const row = resourceOf(await admin.get(`/resource/${talk}`), 200)
      const ids = await app.kernel.em().execute<{ id: number }[]>('select id from resources where slug = ?', [talk])
      const expired = resourceToken(
        tokensWith(app.kernel.services.secret),
        { id: Number(ids[0]!.id), slug: talk },
        60,
        Date.now() - 86_400_000,
      )
      const res = await getBytes(app.url, `/resource/${talk}/thumbnail/thumb.jpg?token=${expired}`)
      expectError(
        { ...res, body: res.body.toString() },
        403,
        'This link has expired: fetch a new one (with-token) or use Digest credentials.',
      )
      expect(text(row.slug)).toBe(talk)
      const gone = await published(admin, place.stream, { file, title: 'Gone soon', visibility: 'visible' })
      const goneThumbnail = text((await info(gone, '?with-token=1')).thumbnail)
      expect((await getBytes(app.url, pathOf(goneThumbnail))).status).toBe(200)
      expect((await admin.delete(`/resource/${gone}`)).status).toBe(204)
      const after = await getBytes(app.url, pathOf(goneThumbnail))
      expectError({ ...after, body: after.body.toString() }, 404, NO_RESOURCE(gone))
    })
  })
})
