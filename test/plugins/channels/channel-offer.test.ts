import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PluginDefinition, definePlugin } from '../../../src/kernel/index.js'
import { CHANNEL_OFFERS, type ChannelType, type FlavorChoice } from '../../../plugins/channels/index.js'
import type { RenditionView } from '../../../plugins/encoding/index.js'
import { mediaQueries } from '../../../plugins/media/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'

const rendition = (
  kind: RenditionView['kind'],
  name: string,
  mimeType: string,
  height: number | null,
): RenditionView => ({
  id: 0,
  fileId: 1,
  kind,
  name,
  storageKey: `f/${name}`,
  size: 1,
  mimeType,
  width: height === null ? null : Math.round((height * 16) / 9),
  height,
  duration: 10,
  selected: false,
})

const VIDEO = [
  rendition('flavor', '360p', 'video/mp4', 360),
  rendition('flavor', '720p', 'video/mp4', 720),
  rendition('hls', 'hls', 'application/vnd.apple.mpegurl', 720),
  rendition('thumbnail', 'thumbnail', 'image/jpeg', 180),
]
const SOUND = [rendition('flavor', 'aac', 'audio/mp4', null), rendition('flavor', 'mp3', 'audio/mpeg', null)]

const names = (choices: FlavorChoice[]): string[] =>
  choices.map((c) => (c.source === 'rendition' ? `${c.name}:${c.rendition.name}` : `${c.name}:${c.source}`))

/** How many times each kernel's registry emitted `channels.types` (the plugin counts per registration). */
const emits: number[] = []

/** A podcast channel type: one `episode`, the mp3 of a sound, the smallest MP4 of a video. */
const podcast: ChannelType = {
  type: 'podcast',
  themed: false,
  players: false,
  flavors: (file, renditions) => {
    const pick =
      file.type === 'audio'
        ? renditions.find((r) => r.mimeType === 'audio/mpeg')
        : renditions.filter((r) => r.mimeType === 'video/mp4').sort((a, b) => (a.height ?? 0) - (b.height ?? 0))[0]
    return pick ? [{ name: 'episode', source: 'rendition', rendition: pick }] : []
  },
}

const podcastPlugin: PluginDefinition = definePlugin({
  name: 'test-podcast-channels',
  dependsOn: ['channels'],
  register(ctx) {
    const slot = emits.push(0) - 1
    ctx.on('channels.types', ({ add }) => {
      emits[slot]!++
      add(podcast)
    })
  },
})

async function createMedia(app: TestApp, name: string, domain: string): Promise<number> {
  const res = await app.client.post('/platform/default/medias', {
    form: { name, domain_name: domain, contact_email: 'team@example.org' },
  })
  const slug = text(xmlOf(res, 201).media.slug)
  return (await mediaQueries.bySlug(app.kernel.services.reader, slug))!.id
}

async function addChannel(app: TestApp, media: string, form: Record<string, string>): Promise<string> {
  return text(xmlOf(await app.client.post(`/media/${media}/channels`, { form }), 201).channel.slug)
}

describe("CHANNEL_OFFERS: what a media's online channels offer", () => {
  let app: TestApp
  let plain: TestApp
  let news: number

  beforeAll(async () => {
    ;[app, plain] = await Promise.all([startApp({ plugins: [podcastPlugin] }), startApp()])
    news = await createMedia(app, 'News', 'news.example.org')
  })
  afterAll(async () => Promise.all([app?.close(), plain?.close()]))

  it('a new media offers the web flavors and players (Web and Widget channels)', async () => {
    const offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(offer.players).toBe(true)
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual(['720p:720p', '360p:360p', 'hls:hls'])
    expect(names(offer.flavors({ type: 'audio' }, SOUND))).toEqual(['aac:aac', 'mp3:mp3'])
  })

  it('a type added through channels.types contributes its flavors, in channel order; unknown types nothing', async () => {
    await addChannel(app, 'news', { type: 'podcast', name: 'Podcast' })
    await addChannel(app, 'news', { type: 'never-heard-of', name: 'Mystery' })
    await addChannel(app, 'news', { type: 'api', name: 'API' })
    const offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual([
      '720p:720p',
      '360p:360p',
      'hls:hls',
      'episode:360p',
      'source:original',
    ])
    expect(names(offer.flavors({ type: 'audio' }, SOUND))).toEqual([
      'aac:aac',
      'mp3:mp3',
      'episode:mp3',
      'source:original',
    ])
    // Collected once for this kernel, however often the registry is used.
    await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(emits[0]).toBe(1)
  })

  it('offline channels offer nothing: players go with the last online channel that has them', async () => {
    const put = (slug: string, form: Record<string, string>) => app.client.put(`/media/news/channel/${slug}`, { form })
    expect((await put('news-web', { is_online: '0' })).status).toBe(201)
    let offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(offer.players).toBe(true)
    // Without web: the podcast episode, then api's original and every flavor (no hls).
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual([
      'episode:360p',
      'source:original',
      '720p:720p',
      '360p:360p',
    ])
    expect((await put('news-widget', { is_online: 'false' })).status).toBe(201)
    offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(offer.players).toBe(false)
    expect((await put('news-web', { is_online: '1' })).status).toBe(201)
    offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, news)
    expect(offer.players).toBe(true)
    expect(names(offer.flavors({ type: 'video' }, VIDEO))[0]).toBe('720p:720p')
  })

  it("another media's channels are its own", async () => {
    const sport = await createMedia(app, 'Sport', 'sport.example.org')
    await addChannel(app, 'sport', { type: 'syndication', name: 'Feed' })
    const offer = await app.kernel.exposed(CHANNEL_OFFERS).of(app.kernel.services.reader, sport)
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual([
      '720p:720p',
      '360p:360p',
      'hls:hls',
      'download:720p',
    ])
    expect(offer.players).toBe(true)
  })

  it('the registry is per kernel: where no plugin adds podcast, a podcast channel offers nothing', async () => {
    const media = await createMedia(plain, 'Plain', 'plain.example.org')
    await addChannel(plain, 'plain', { type: 'podcast', name: 'Podcast' })
    const offer = await plain.kernel.exposed(CHANNEL_OFFERS).of(plain.kernel.services.reader, media)
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual(['720p:720p', '360p:360p', 'hls:hls'])
    expect(emits).toEqual([1])
    // ... and podcast channels there are not themed anywhere else either: a theme is refused as on any unknown type.
    const res = await plain.client.post('/media/plain/channels', { form: { type: 'podcast', name: 'x', theme: 't' } })
    expect(res.status).toBe(412)
  })
})
