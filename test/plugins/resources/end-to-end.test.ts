import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import {
  digestBytes,
  ffprobe,
  getBytes,
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from '../encoding/encoding.helpers.js'

const SRT = '1\n00:00:00,000 --> 00:00:01,500\nBonjour <b>tout</b> le monde\n\n2\n00:00:01,600 --> 00:00:02,500\nFin\n'

/** The XML root of an answer, after checking its status. */
function answer(res: { status: number; body: string }, status: number, root: string): XmlObject {
  expect(res.status, res.body.slice(0, 500)).toBe(status)
  return parseXml(res.body)[root] as XmlObject
}

/**
 * What a client of the original service does, through the API only: a platform, a media, a
 * stream and a sub-stream; a video uploaded, encoded, published; the resource read with
 * everything a player needs; a widget and its embed codes; 120 resources paged with Range;
 * the file deleted and its resources gone.
 */
describe('publishing, end to end', () => {
  let app: TestApp
  let admin: DigestClient
  let fileSlug: string
  let streamSlug: string
  let subStreamSlug: string
  let resource: XmlObject

  beforeAll(async () => {
    app = await startEncodingApp()
    admin = app.client
  })
  afterAll(async () => app?.close())

  it('creates a platform, a media, a stream and a sub-stream', async () => {
    const platform = answer(
      await admin.post('/platforms', { form: { name: 'Campus', max_users: 0, max_space: 0 } }),
      201,
      'platform',
    )
    const media = answer(
      await admin.post(`/platform/${text(platform.slug)}/medias`, {
        form: {
          name: 'Campus TV',
          domain_name: 'tv.campus.example',
          domain: 'tv.campus.example',
          contact_email: 'tv@campus.example',
          max_streams: 0,
        },
      }),
      201,
      'media',
    )
    expect(text(media.domain_name)).toBe('tv.campus.example')
    const stream = answer(
      await admin.post(`/media/${text(media.slug)}/streams`, {
        form: { title: 'Lectures', subtitle: 'All of them', visibility: 'visible' },
      }),
      201,
      'stream',
    )
    streamSlug = text(stream.slug)
    const sub = answer(
      await admin.post(`/media/${text(media.slug)}/streams`, {
        form: { title: 'Physics 101', visibility: 'visible', parent_stream: streamSlug },
      }),
      201,
      'stream',
    )
    subStreamSlug = text(sub.slug)
    expect(text(sub.parent_stream)).toBe(streamSlug)
  })

  it('uploads a video, which is encoded to finished, and adds French subtitles', async () => {
    fileSlug = await uploadMedia(admin, await makeMedia('video', { seconds: 3 }), 'lecture-1.mp4')
    const samples = await waitForStatus(admin, fileSlug)
    expect(samples.at(-1)!.status, JSON.stringify(samples)).toBe('finished')
    const { body, headers } = multipartRequest([
      { name: 'language', value: 'fr' },
      { name: 'subtitle', filename: 'lecture.srt', data: Buffer.from(SRT) },
    ])
    expect((await admin.post(`/file/${fileSlug}/subtitles`, { body, headers })).status).toBe(201)
  })

  it('publishes it into the sub-stream (201) and reads the resource with everything a player needs', async () => {
    const created = answer(
      await admin.post(`/stream/${subStreamSlug}/resources`, {
        form: { file: fileSlug, title: 'Lecture 1', subtitle: 'Kinematics', visibility: 'visible' },
      }),
      201,
      'resource',
    )
    resource = answer(await admin.get(`/resource/${text(created.slug)}`), 200, 'resource')
    expect(text(resource.title)).toBe('Lecture 1')
    expect(text(resource.sub_title)).toBe('Kinematics')
    expect(text(resource.subtitle)).toBe('Kinematics')
    expect(text(resource.visibility)).toBe('visible')
    expect(Number(text(resource.duration))).toBeGreaterThan(2.5)
    expect(Number(text(resource.views))).toBe(0)
    expect(resource.file['@href']).toMatch(new RegExp(`/file/${fileSlug}$`))
    expect(resource.stream['@href']).toMatch(new RegExp(`/stream/${subStreamSlug}$`))
    expect(text(resource.published_at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
  })

  it('gives flavors of the web channel that ffprobe accepts as H.264 MP4, and an HLS master', async () => {
    const flavors = list(resource.flavors.flavor)
    const names = flavors.map((f: XmlObject) => f['@name'])
    expect(names).toEqual(['240p', '120p', 'hls'])
    for (const flavor of flavors.filter((f: XmlObject) => f['@name'] !== 'hls')) {
      const url = text(flavor)
      expect(url).toMatch(new RegExp(`/resource/${text(resource.slug)}/flavor/video/${flavor['@name']}\\.mp4$`))
      const res = await digestBytes(admin, pathOf(url))
      expect(res.status).toBe(200)
      const probe = await ffprobe(res.body)
      expect(probe.streams.map((s) => s.codec_name)).toContain('h264')
    }
    const hls = text(flavors.find((f: XmlObject) => f['@name'] === 'hls'))
    expect(hls).toMatch(/\/hls\/master\.m3u8$/)
    const master = await digestBytes(admin, pathOf(hls))
    expect(master.status).toBe(200)
    expect(master.body.toString()).toMatch(/^#EXTM3U/)
    expect(master.body.toString()).toContain('#EXT-X-STREAM-INF')
  })

  it('gives a thumbnail JPEG, the subtitles as WebVTT, the player and the widgets link', async () => {
    const thumbnail = await digestBytes(admin, pathOf(text(resource.thumbnail)))
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
    const [subtitle] = list(resource.subtitles.subtitle)
    expect(subtitle['@language']).toBe('fr')
    expect(subtitle['@href']).toMatch(new RegExp(`/resource/${text(resource.slug)}/subtitles/[0-9a-f]{40}\\.fr\\.srt$`))
    const vtt = await digestBytes(admin, pathOf(subtitle['@href']))
    expect(vtt.status).toBe(200)
    expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8')
    expect(vtt.body.toString()).toMatch(/^WEBVTT/)
    expect(vtt.body.toString()).toContain('00:00:00.000 --> 00:00:01.500')
    const [player] = list(resource.players.player)
    expect(player['@name']).toBe('default')
    expect(text(player)).toMatch(new RegExp(`/player/${text(resource.slug)}$`))
    expect(resource.widgets['@href']).toMatch(new RegExp(`/resource/${text(resource.slug)}/widgets$`))
  })

  it('accepts the query flags real clients send (without-views, without-usages) and answers the same resource', async () => {
    const flagged = answer(
      await admin.get(`/resource/${text(resource.slug)}?without-views=1&without-usages=1`),
      200,
      'resource',
    )
    expect(text(flagged.slug)).toBe(text(resource.slug))
    expect(list(flagged.flavors.flavor)).toHaveLength(list(resource.flavors.flavor).length)
  })

  it('with-token gives asset URLs that work without credentials', async () => {
    const withToken = answer(await admin.get(`/resource/${text(resource.slug)}?with-token=1`), 200, 'resource')
    const flavor = text(list(withToken.flavors.flavor)[0])
    expect(flavor).toMatch(/\?token=/)
    expect((await getBytes(app.url, pathOf(flavor), { range: 'bytes=0-99' })).status).toBe(206)
    expect((await getBytes(app.url, pathOf(text(withToken.thumbnail)))).status).toBe(200)
    // Without the token: the resource is published, so its thumbnail is a public asset.
    const bare = await getBytes(app.url, pathOf(text(resource.thumbnail)))
    expect([bare.status, bare.headers['cache-control']]).toEqual([200, 'public, max-age=300'])
  })

  it('creates a widget and fetches its permanent embed codes', async () => {
    const widget = answer(
      await admin.post(`/resource/${text(resource.slug)}/widgets`, { form: { name: 'Course page', size: '640x360' } }),
      201,
      'widget',
    )
    const iframe = text(widget.embeds.iframe)
    expect(iframe).toMatch(/^<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\/[a-z0-9-]+" width="640" height="360"/)
    expect(text(widget.embeds.javascript)).toMatch(/<script src="[^"]+\/embed\/[a-z0-9-]+\.js"/)
    const again = answer(await admin.get(`/resource/${text(resource.slug)}`), 200, 'resource')
    const [listed] = list(again.widgets.widget)
    expect(listed['@name']).toBe('Course page')
    expect(decodeURIComponent(text(listed))).toBe(iframe)
  })

  it('pages through 120 resources with Range: entities=0-49 and so on', async () => {
    for (let i = 1; i <= 119; i++) {
      const res = await admin.post(`/stream/${streamSlug}/resources`, {
        form: { file: fileSlug, title: `Episode ${i}`, visibility: 'visible' },
      })
      expect(res.status).toBe(201)
    }
    // The sub-stream holds the first resource; the stream holds 119: publish one more there.
    await admin.post(`/stream/${streamSlug}/resources`, {
      form: { file: fileSlug, title: 'Episode 120', visibility: 'visible' },
    })
    const titles: string[] = []
    for (const [range, expected] of [
      ['entities=0-49', 'entities 0-49/120'],
      ['entities=50-99', 'entities 50-99/120'],
      ['entities=100-149', 'entities 100-119/120'],
    ]) {
      const res = await admin.get(`/stream/${streamSlug}/resources`, { headers: { range: range! } })
      expect(res.status).toBe(200)
      expect(res.headers['content-range']).toBe(expected)
      titles.push(...list(parseXml(res.body).resources.resource).map((r: XmlObject) => text(r.title)))
    }
    expect(titles).toEqual([...Array.from({ length: 119 }, (_, i) => `Episode ${i + 1}`), 'Episode 120'])
    const past = await admin.get(`/stream/${streamSlug}/resources`, { headers: { range: 'entities=120-130' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
  })

  it('deleting the file deletes its resources', async () => {
    expect((await admin.delete(`/file/${fileSlug}`)).status).toBe(204)
    expect((await admin.get(`/resource/${text(resource.slug)}`)).status).toBe(404)
    const res = await admin.get(`/stream/${streamSlug}/resources`)
    expect(res.status).toBe(200)
    expect(list(parseXml(res.body).resources.resource)).toHaveLength(0)
  })
})
