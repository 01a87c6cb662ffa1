import { XMLValidator } from 'fast-xml-parser'
import Parser from 'rss-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resourceQueries } from '../../../plugins/resources/index.js'
import { FEED_LIMIT } from '../../../plugins/syndication/feed.routes.js'
import { mediaQueries } from '../../../plugins/media/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import {
  getBytes,
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from '../encoding/encoding.helpers.js'

const SRT = '1\n00:00:00,000 --> 00:00:01,000\nBonjour\n\n'
const TITLE = 'Lecture <script>alert(1)</script> & ]]> one'
const DESCRIPTION = 'Kinematics & <b>forces</b>\nSecond line'
const WEEK_S = 7 * 24 * 3600

/** What the test reads of an item, beyond rss-parser's own fields. */
interface ItemFields {
  mediaGroup?: { 'media:content': { $: Record<string, string> }[] }
  thumbnail?: { $: Record<string, string> }
  subtitles?: { $: Record<string, string> }[]
  duration?: string
  /** rss-parser's own reading of the iTunes elements. */
  itunes?: { subtitle?: string; explicit?: string; image?: string; duration?: string }
}

const rss = new Parser<Record<string, never>, ItemFields>({
  customFields: {
    item: [
      ['media:group', 'mediaGroup'],
      ['media:thumbnail', 'thumbnail'],
      ['media:subTitle', 'subtitles', { keepArray: true }],
      ['itunes:duration', 'duration'],
    ],
  },
})

/** The XML root of an answer, after checking its status. */
function answer(res: { status: number; body: string }, status: number, root: string): XmlObject {
  expect(res.status, res.body.slice(0, 500)).toBe(status)
  return parseXml(res.body)[root] as XmlObject
}

/** When a media token expires (its payload is readable: `{ r, s, exp }`). */
const tokenExpiry = (url: string): number => {
  const token = new URL(url).searchParams.get('token')!
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { exp: number }).exp
}

describe('syndication feed', () => {
  let app: TestApp
  let admin: DigestClient
  let feedPath: string
  const slugs: Record<string, string> = {}
  let published: { first: string; second: string }

  const feed = (path = feedPath, headers: Record<string, string> = {}) => getBytes(app.url, path, headers)

  beforeAll(async () => {
    app = await startEncodingApp()
    admin = app.client
    const media = answer(
      await admin.post('/platform/default/medias', {
        form: {
          name: 'Campus TV',
          domain_name: 'tv.campus.example',
          contact_email: 'tv@campus.example',
          description: 'Talks & <lectures>',
        },
      }),
      201,
      'media',
    )
    slugs.media = text(media.slug)
    const channel = async (form: Record<string, string>) =>
      text(answer(await admin.post(`/media/${slugs.media}/channels`, { form }), 201, 'channel').slug)
    slugs.feed = await channel({ type: 'syndication', name: 'Podcast' })
    slugs.offline = await channel({ type: 'syndication', name: 'Old feed', is_online: '0' })
    // An online api channel: its `source` (the original upload) must stay out of the feed.
    slugs.api = await channel({ type: 'api', name: 'Partners' })
    feedPath = `/media/${slugs.media}/channel/${slugs.feed}/feed.rss`

    const stream = async (form: Record<string, string>) =>
      text(answer(await admin.post(`/media/${slugs.media}/streams`, { form }), 201, 'stream').slug)
    slugs.lectures = await stream({ title: 'Lectures', visibility: 'visible' })
    slugs.backstage = await stream({ title: 'Backstage', visibility: 'hidden' })
    // Visible itself, but below a hidden stream: not public.
    slugs.inside = await stream({ title: 'Rehearsals', visibility: 'visible', parent_stream: slugs.backstage })

    const file = await uploadMedia(admin, await makeMedia('video', { seconds: 2 }), 'lecture.mp4')
    const samples = await waitForStatus(admin, file)
    expect(samples.at(-1)!.status, JSON.stringify(samples)).toBe('finished')
    const { body, headers } = multipartRequest([
      { name: 'language', value: 'fr' },
      { name: 'subtitle', filename: 'lecture.srt', data: Buffer.from(SRT) },
    ])
    expect((await admin.post(`/file/${file}/subtitles`, { body, headers })).status).toBe(201)

    const publish = async (streamSlug: string, form: Record<string, string>) =>
      text(
        answer(await admin.post(`/stream/${streamSlug}/resources`, { form: { file, ...form } }), 201, 'resource').slug,
      )
    published = {
      first: await publish(slugs.lectures, {
        title: TITLE,
        subtitle: 'Kinematics',
        description: DESCRIPTION,
        visibility: 'visible',
        published_at: '2026-01-05T10:00:00+00:00',
      }),
      second: await publish(slugs.lectures, {
        title: 'Lecture two',
        visibility: 'visible',
        published_at: '2026-01-12T10:00:00+00:00',
      }),
    }
    slugs.hidden = await publish(slugs.lectures, { title: 'Hidden', visibility: 'hidden' })
    slugs.draft = await publish(slugs.lectures, { title: 'Draft', visibility: 'draft' })
    slugs.inHidden = await publish(slugs.inside, { title: 'In a hidden stream', visibility: 'visible' })
  }, 120_000)
  afterAll(async () => app?.close())

  it('answers RSS without credentials, with cache validators, well-formed', async () => {
    const res = await feed()
    expect(res.status, res.body.toString()).toBe(200)
    expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8')
    expect(res.headers['cache-control']).toBe('public, max-age=300')
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(new Date(res.headers['last-modified'] as string).getTime()).not.toBeNaN()
    const body = res.body.toString()
    expect(XMLValidator.validate(body)).toBe(true)
    expect(body).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<rss version="2\.0"/)
    expect(body).toContain('xmlns:media="http://search.yahoo.com/mrss/"')
    expect(body).toContain('xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"')
    // HTML in a title is text: no markup, and no CDATA to break out of.
    expect(body).not.toContain('<script>')
    expect(body).not.toContain(']]>')
    // Feed readers ask for RSS.
    expect((await feed(feedPath, { accept: 'application/rss+xml, application/xml;q=0.9' })).status).toBe(200)
  })

  it('describes the media: title, link, description, self link, dates', async () => {
    const body = (await feed()).body.toString()
    const parsed = await rss.parseString(body)
    expect(parsed.title).toBe('Campus TV')
    expect(parsed.link).toBe(`${app.url}/portal/${slugs.media}`)
    expect(parsed.description).toBe('Talks &#38; &#60;lectures&#62;')
    const channel = parseXml(body).rss.channel as XmlObject
    expect(channel['atom:link']).toMatchObject({ '@href': `${app.url}${feedPath}`, '@rel': 'self' })
    expect(text(channel.lastBuildDate)).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/)
    expect(text(channel.pubDate)).toBe('Mon, 12 Jan 2026 10:00:00 GMT')
    expect(text(channel['itunes:explicit'])).toBe('false')
  })

  it('lists the visible resources of visible streams, newest first; hidden, draft and hidden-stream ones never', async () => {
    const parsed = await rss.parseString((await feed()).body.toString())
    expect(parsed.items.map((item) => item.guid)).toEqual([published.second, published.first])
    const body = (await feed()).body.toString()
    for (const slug of [slugs.hidden, slugs.draft, slugs.inHidden]) expect(body).not.toContain(slug!)
    const guid = (parseXml(body).rss.channel.item as XmlObject[])[0]!.guid
    expect(guid).toEqual({ '#text': published.second, '@isPermaLink': 'false' })
  })

  it('gives each item its text: the title round-trips, the description is HTML-escaped text', async () => {
    const parsed = await rss.parseString((await feed()).body.toString())
    const item = parsed.items.find((i) => i.guid === published.first)!
    expect(item.title).toBe(TITLE)
    expect(item.pubDate).toBe('Mon, 05 Jan 2026 10:00:00 GMT')
    expect(item.isoDate).toBe('2026-01-05T10:00:00.000Z')
    // Readers render a description as HTML: the text was escaped as HTML, line breaks kept.
    expect(item.content).toBe('Kinematics &#38; &#60;b&#62;forces&#60;/b&#62;<br>\nSecond line')
    expect(item.itunes?.subtitle).toBe('Kinematics')
    expect(item.itunes?.explicit).toBe('false')
    expect(item.link).toBe(`${app.url}/player/${published.first}`)
  })

  it('every media URL works without credentials: enclosure, media:content, thumbnail, subtitles', async () => {
    const parsed = await rss.parseString((await feed()).body.toString())
    expect(parsed.items).toHaveLength(2)
    for (const item of parsed.items) {
      // The enclosure: the syndication channel's download, the 240p MP4 of the test ladder.
      const enclosure = item.enclosure!
      expect(enclosure.type).toBe('video/mp4')
      expect(enclosure.url).toMatch(new RegExp(`/resource/${item.guid}/flavor/video/240p\\.mp4\\?token=`))
      const download = await getBytes(app.url, pathOf(enclosure.url))
      expect(download.status).toBe(200)
      expect(download.headers['content-type']).toBe('video/mp4')
      expect(Number(enclosure.length)).toBe(download.body.length)

      const contents = item.mediaGroup!['media:content'].map((c) => c.$)
      // What the online channels offer (web: the ladder and HLS; syndication: its download, the 240p already
      // listed), each file once; never the original that the api channel offers (`/source`).
      expect(contents.map((c) => new URL(c.url!).pathname.split('/').slice(3).join('/'))).toEqual([
        'flavor/video/240p.mp4',
        'flavor/video/120p.mp4',
        'hls/master.m3u8',
      ])
      expect(contents.filter((c) => c.isDefault === 'true').map((c) => c.url)).toEqual([enclosure.url])
      const hls = contents.pop()!
      expect(hls).toMatchObject({ type: 'application/vnd.apple.mpegurl', medium: 'video' })
      expect(hls.fileSize).toBeUndefined()
      const playlist = await getBytes(app.url, pathOf(hls.url!))
      expect(playlist.status).toBe(200)
      // Fetched with the feed's token, the playlist names its variants with it too.
      expect(playlist.body.toString()).toMatch(/^#EXTM3U[\s\S]*\?token=/)
      for (const content of contents) {
        expect(content).toMatchObject({ type: 'video/mp4', medium: 'video', expression: 'full' })
        expect(Number(content.width)).toBeGreaterThan(0)
        expect(Number(content.height)).toBeGreaterThan(0)
        expect(Number(content.duration)).toBeGreaterThanOrEqual(2)
        const bytes = await getBytes(app.url, pathOf(content.url!))
        expect(bytes.status).toBe(200)
        expect(bytes.headers['content-type']).toBe(content.type)
        expect(Number(content.fileSize)).toBe(bytes.body.length)
      }

      const thumbnail = item.thumbnail!.$
      const picture = await getBytes(app.url, pathOf(thumbnail.url!))
      expect(picture.status).toBe(200)
      expect(picture.headers['content-type']).toBe('image/jpeg')
      expect(picture.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
      expect(item.itunes?.image).toBe(thumbnail.url)

      const subtitles = item.subtitles!.map((s) => s.$)
      expect(subtitles).toHaveLength(1)
      expect(subtitles[0]).toMatchObject({ type: 'text/vtt', lang: 'fr' })
      const vtt = await getBytes(app.url, pathOf(subtitles[0]!.href!))
      expect(vtt.status).toBe(200)
      expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8')
      expect(vtt.body.toString()).toMatch(/^WEBVTT/)

      expect(Number(item.duration)).toBeGreaterThanOrEqual(2)
      expect(item.itunes?.duration).toBe(item.duration)
    }
  })

  it('signs its links for a week, on the hour', async () => {
    const parsed = await rss.parseString((await feed()).body.toString())
    const now = Date.now() / 1000
    for (const url of [parsed.items[0]!.enclosure!.url, parsed.items[0]!.thumbnail!.$.url!]) {
      const exp = tokenExpiry(url)
      expect(exp % 3600).toBe(0)
      expect(exp).toBeGreaterThanOrEqual(now + WEEK_S - 60)
      expect(exp).toBeLessThanOrEqual(now + WEEK_S + 3600)
    }
  })

  it('answers 304 to If-None-Match with its ETag, 200 to another one', async () => {
    const first = await feed()
    const etag = first.headers.etag as string
    const again = await feed(feedPath, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    expect(again.headers.etag).toBe(etag)
    expect(again.headers['cache-control']).toBe('public, max-age=300')
    expect((await feed(feedPath, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304)
    expect((await feed(feedPath, { 'if-none-match': '"other"' })).status).toBe(200)
  })

  it('changes when the items do: a retitled resource gives another ETag', async () => {
    const before = (await feed()).headers.etag as string
    const put = await admin.put(`/resource/${published.second}`, { form: { title: 'Lecture 2' } })
    expect(put.status, put.body).toBe(200)
    const after = await feed(feedPath, { 'if-none-match': before })
    expect(after.status).toBe(200)
    expect(after.headers.etag).not.toBe(before)
    expect((await rss.parseString(after.body.toString())).items[0]!.title).toBe('Lecture 2')
  })

  it('follows stream visibility down the tree: a hidden stream made visible publishes its sub-stream', async () => {
    const visibility = async (value: string) => {
      const res = await admin.put(`/stream/${slugs.backstage}`, { form: { visibility: value } })
      expect(res.status, res.body).toBe(201)
    }
    await visibility('visible')
    try {
      const guids = (await rss.parseString((await feed()).body.toString())).items.map((item) => item.guid)
      expect(guids).toEqual([slugs.inHidden, published.second, published.first])
    } finally {
      await visibility('hidden')
    }
    expect((await rss.parseString((await feed()).body.toString())).items).toHaveLength(2)
  })

  it('lists the newest items only, up to its limit', async () => {
    const media = await mediaQueries.bySlug(app.kernel.services.reader, slugs.media!)
    const newest = await resourceQueries.newestPublic(app.kernel.services.reader, media!.id, 1)
    expect(newest.map((e) => e.resource.slug)).toEqual([published.second])
    expect(FEED_LIMIT).toBe(100)
  })

  it('404 for an api channel, an offline syndication channel, an unknown channel or media', async () => {
    for (const path of [
      `/media/${slugs.media}/channel/${slugs.api}/feed.rss`,
      `/media/${slugs.media}/channel/${slugs.offline}/feed.rss`,
      `/media/${slugs.media}/channel/no-such-channel/feed.rss`,
      `/media/no-such-media/channel/${slugs.feed}/feed.rss`,
    ]) {
      const res = await feed(path)
      expect(res.status, path).toBe(404)
      expect(text(parseXml(res.body.toString()).error.status)).toBe('404')
    }
    // Online again, the channel's feed answers.
    const put = await admin.put(`/media/${slugs.media}/channel/${slugs.offline}`, { form: { is_online: '1' } })
    expect(put.status, put.body).toBe(201)
    expect((await feed(`/media/${slugs.media}/channel/${slugs.offline}/feed.rss`)).status).toBe(200)
  })

  it('shows the feed link in the info and list of syndication channels only', async () => {
    const info = answer(await admin.get(`/media/${slugs.media}/channel/${slugs.feed}`), 200, 'channel')
    expect(info.feed).toEqual({ '@href': `${app.url}${feedPath}` })
    const entries = list<XmlObject>(answer(await admin.get(`/media/${slugs.media}/channels`), 200, 'channels').channel)
    const feeds = Object.fromEntries(entries.map((e) => [text(e.slug), e.feed?.['@href']]))
    expect(feeds).toEqual({
      [`${slugs.media}-web`]: undefined,
      [`${slugs.media}-widget`]: undefined,
      [slugs.feed!]: `${app.url}${feedPath}`,
      [slugs.offline!]: `${app.url}/media/${slugs.media}/channel/${slugs.offline}/feed.rss`,
      [slugs.api!]: undefined,
    })
  })
})
