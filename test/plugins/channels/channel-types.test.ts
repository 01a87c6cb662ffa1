import { describe, expect, it } from 'vitest'
import type { RenditionView } from '../../../plugins/encoding/index.js'
import {
  BUILT_IN_CHANNEL_TYPES,
  type ChannelType,
  type FlavorChoice,
  apiChannelType,
  syndicationChannelType,
  webChannelType,
  widgetChannelType,
} from '../../../plugins/channels/index.js'
import { ChannelTypeRegistry } from '../../../plugins/channels/channel-type.registry.js'
import { offerOf } from '../../../plugins/channels/channel.offer.js'

let nextId = 1

/** A fabricated rendition row (only the fields the channel types read matter). */
function rendition(
  kind: RenditionView['kind'],
  name: string,
  mimeType: string,
  height: number | null = null,
): RenditionView {
  const width = height === null ? null : Math.round((height * 16) / 9)
  return {
    id: nextId++,
    fileId: 1,
    kind,
    name,
    storageKey: `f/${kind}-${name}`,
    size: 1000,
    mimeType,
    width,
    height,
    duration: 12.5,
    selected: false,
  }
}

const mp4 = (height: number) => rendition('flavor', `${height}p`, 'video/mp4', height)
const hls = rendition('hls', 'hls', 'application/vnd.apple.mpegurl', 1080)
const thumbnail = rendition('thumbnail', 'thumbnail', 'image/jpeg', 180)
const snapshot = rendition('snapshot', '0', 'image/jpeg', 180)
const aac = rendition('flavor', 'aac', 'audio/mp4')
const mp3 = rendition('flavor', 'mp3', 'audio/mpeg')
const webm = rendition('flavor', 'webm-480', 'video/webm', 480)

/** A video's renditions, in the (unsorted) order a run may store them. */
const VIDEO = [mp4(360), thumbnail, mp4(1080), snapshot, hls, mp4(720), mp4(480)]
const SOUND = [aac, mp3]

/** Choices as `name:source[:rendition name]`, to compare whole lists at a glance. */
const names = (choices: FlavorChoice[]): string[] =>
  choices.map((c) => (c.source === 'rendition' ? `${c.name}:${c.rendition.name}` : `${c.name}:${c.source}`))

describe('built-in channel types', () => {
  it('are web, widget, api and syndication, only web themed, players on web and widget', () => {
    expect(BUILT_IN_CHANNEL_TYPES.map((t) => [t.type, t.themed, t.players])).toEqual([
      ['web', true, true],
      ['widget', false, true],
      ['api', false, false],
      ['syndication', false, false],
    ])
  })

  describe('web', () => {
    it('offers every MP4 of the ladder, largest first, then hls, for a video', () => {
      expect(names(webChannelType.flavors({ type: 'video' }, VIDEO))).toEqual([
        '1080p:1080p',
        '720p:720p',
        '480p:480p',
        '360p:360p',
        'hls:hls',
      ])
    })

    it('skips video flavors that are not MP4, and hls when there is none', () => {
      expect(names(webChannelType.flavors({ type: 'video' }, [webm, mp4(480), mp4(720)]))).toEqual([
        '720p:720p',
        '480p:480p',
      ])
    })

    it('offers the audio flavors of a sound file, in rendition order, and nothing for an image', () => {
      expect(names(webChannelType.flavors({ type: 'audio' }, SOUND))).toEqual(['aac:aac', 'mp3:mp3'])
      expect(
        webChannelType.flavors({ type: 'image' }, [thumbnail, rendition('image', 'image', 'image/jpeg', 600)]),
      ).toEqual([])
    })

    it('points each choice at its rendition', () => {
      const [first] = webChannelType.flavors({ type: 'video' }, VIDEO)
      expect(first).toEqual({ name: '1080p', source: 'rendition', rendition: VIDEO[2] })
    })
  })

  it('widget offers no flavors', () => {
    expect(widgetChannelType.flavors({ type: 'video' }, VIDEO)).toEqual([])
    expect(widgetChannelType.flavors({ type: 'audio' }, SOUND)).toEqual([])
  })

  describe('api', () => {
    it('offers the original as source, then every flavor: video largest first, then audio', () => {
      expect(names(apiChannelType.flavors({ type: 'video' }, [...VIDEO, webm]))).toEqual([
        'source:original',
        '1080p:1080p',
        '720p:720p',
        '480p:480p',
        'webm-480:webm-480',
        '360p:360p',
      ])
      expect(names(apiChannelType.flavors({ type: 'audio' }, SOUND))).toEqual(['source:original', 'aac:aac', 'mp3:mp3'])
    })

    it('offers the original of a document, which has no renditions', () => {
      expect(apiChannelType.flavors({ type: 'document' }, [])).toEqual([{ name: 'source', source: 'original' }])
    })
  })

  describe('syndication', () => {
    it('offers one download: the largest MP4 no taller than 720 pixels', () => {
      expect(names(syndicationChannelType.flavors({ type: 'video' }, VIDEO))).toEqual(['download:720p'])
      expect(names(syndicationChannelType.flavors({ type: 'video' }, [mp4(1080), mp4(480), mp4(360)]))).toEqual([
        'download:480p',
      ])
    })

    it('falls back to the smallest MP4 when every one is taller than 720 pixels', () => {
      expect(names(syndicationChannelType.flavors({ type: 'video' }, [mp4(1440), mp4(2160), mp4(1080)]))).toEqual([
        'download:1080p',
      ])
    })

    it('offers the aac flavor of a sound file, else the mp3 one, else nothing', () => {
      expect(names(syndicationChannelType.flavors({ type: 'audio' }, [mp3, aac]))).toEqual(['download:aac'])
      expect(names(syndicationChannelType.flavors({ type: 'audio' }, [mp3]))).toEqual(['download:mp3'])
      expect(syndicationChannelType.flavors({ type: 'audio' }, [])).toEqual([])
      expect(syndicationChannelType.flavors({ type: 'video' }, [hls, thumbnail])).toEqual([])
    })
  })
})

describe('the offer of several channels', () => {
  it('joins the flavors in channel order, each name once, the first channel deciding', () => {
    const offer = offerOf([webChannelType, apiChannelType, syndicationChannelType])
    expect(names(offer.flavors({ type: 'video' }, VIDEO))).toEqual([
      '1080p:1080p',
      '720p:720p',
      '480p:480p',
      '360p:360p',
      'hls:hls',
      'source:original',
      'download:720p',
    ])
    expect(offer.players).toBe(true)
    const other: ChannelType = {
      type: 'other',
      themed: false,
      players: false,
      flavors: (_f, r) =>
        r.filter((x) => x.name === '720p').map((x) => ({ name: 'source', source: 'rendition', rendition: x })),
    }
    // `other` names a rendition `source` first: api's original under the same name is dropped.
    expect(names(offerOf([other, apiChannelType]).flavors({ type: 'video' }, VIDEO))).toEqual([
      'source:720p',
      '1080p:1080p',
      '720p:720p',
      '480p:480p',
      '360p:360p',
    ])
  })

  it('offers players only when some channel type does, and nothing without channels', () => {
    expect(offerOf([apiChannelType, syndicationChannelType]).players).toBe(false)
    expect(offerOf([apiChannelType, widgetChannelType]).players).toBe(true)
    const none = offerOf([])
    expect(none.players).toBe(false)
    expect(none.flavors({ type: 'video' }, VIDEO)).toEqual([])
  })
})

describe('the channel type registry', () => {
  const podcast: ChannelType = { type: 'podcast', themed: false, players: false, flavors: () => [] }

  it('collects the built-in types and those added, once, on first use', async () => {
    let emits = 0
    const registry = new ChannelTypeRegistry(BUILT_IN_CHANNEL_TYPES, (add) => {
      emits++
      add(podcast)
      return Promise.resolve()
    })
    expect(emits).toBe(0)
    const [types, again] = await Promise.all([registry.types(), registry.types()])
    expect(await registry.types()).toBe(types)
    expect(again).toBe(types)
    expect(emits).toBe(1)
    expect(types.get('podcast')).toBe(podcast)
    expect(types.get('web')).toBe(webChannelType)
    expect(types.get('unknown')).toBeUndefined()
    expect(types.themed('web')).toBe(true)
    expect(types.themed('podcast')).toBe(false)
    expect(types.themed('unknown')).toBe(false)
    expect(types.themedWords()).toEqual(['web'])
  })

  it('refuses a type defined twice, a malformed word, and an addition after the collection', async () => {
    const twice = new ChannelTypeRegistry(BUILT_IN_CHANNEL_TYPES, (add) => {
      add({ ...podcast, type: 'web' })
      return Promise.resolve()
    })
    await expect(twice.types()).rejects.toThrow('channel type "web" is defined twice')
    // A failed collection is tried again (and fails again) rather than remembered half done.
    await expect(twice.types()).rejects.toThrow('channel type "web" is defined twice')
    for (const word of ['Podcast', 'pod cast', '']) {
      const bad = new ChannelTypeRegistry([], (add) => {
        add({ ...podcast, type: word })
        return Promise.resolve()
      })
      await expect(bad.types()).rejects.toThrow('a type is a lowercase word of letters, digits, - and _')
    }
    let kept: ((type: ChannelType) => void) | undefined
    const late = new ChannelTypeRegistry([], (add) => {
      kept = add
      return Promise.resolve()
    })
    await late.types()
    expect(() => kept!(podcast)).toThrow('channel type "podcast" added after the types were collected')
    expect((await late.types()).get('podcast')).toBeUndefined()
  })
})
