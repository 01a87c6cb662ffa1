import { XMLValidator } from 'fast-xml-parser'
import Parser from 'rss-parser'
import { describe, expect, it } from 'vitest'
import type { FeedItem } from '../../../plugins/syndication/feed.items.js'
import { type FeedDocument, feedRss } from '../../../plugins/syndication/feed.rss.js'
import { type XmlObject, parseXml, text } from '../../helpers/xml.js'

const rss = new Parser()

const item = (overrides: Partial<FeedItem>): FeedItem => ({
  guid: 'episode',
  title: 'Episode',
  subtitle: '',
  description: '',
  date: new Date('2026-03-01T08:30:00Z'),
  link: null,
  enclosure: null,
  contents: [],
  thumbnail: null,
  subtitles: [],
  duration: null,
  ...overrides,
})

const doc = (items: FeedItem[], overrides: Partial<FeedDocument> = {}): FeedDocument => ({
  title: 'Radio',
  link: 'https://example.org/portal/radio',
  description: '',
  self: 'https://example.org/media/radio/channel/podcast/feed.rss',
  lastBuild: new Date('2026-03-02T10:00:00Z'),
  ttlMinutes: 5,
  items,
  ...overrides,
})

/** The parsed `rss.channel` of a feed, after checking it is well-formed. */
function channelOf(body: string): XmlObject {
  expect(XMLValidator.validate(body)).toBe(true)
  return parseXml(body).rss.channel as XmlObject
}

describe('feed RSS writer', () => {
  it('writes a sound: an audio enclosure, media:content without a picture size, no thumbnail', async () => {
    const url = 'https://example.org/resource/episode/flavor/audio/aac.m4a?token=t&x=1'
    const body = feedRss(
      doc([
        item({
          enclosure: { url, length: 12345, type: 'audio/mp4' },
          contents: [
            {
              url,
              type: 'audio/mp4',
              medium: 'audio',
              fileSize: 12345,
              width: null,
              height: null,
              duration: 61.4,
              isDefault: true,
            },
          ],
          duration: 61.4,
        }),
      ]),
    )
    const channel = channelOf(body)
    expect(channel.item['media:group']['media:content']).toEqual({
      '@url': url,
      '@type': 'audio/mp4',
      '@medium': 'audio',
      '@isDefault': 'true',
      '@expression': 'full',
      '@fileSize': '12345',
      '@duration': '61',
    })
    expect(channel.item['media:thumbnail']).toBeUndefined()
    expect(channel.item['itunes:image']).toBeUndefined()
    expect(text(channel.item['itunes:duration'])).toBe('61')
    const parsed = await rss.parseString(body)
    expect(parsed.items[0]!.enclosure).toEqual({ url, length: '12345', type: 'audio/mp4' })
  })

  it('writes a document: no enclosure, no media, no link; the description falls back to the title', () => {
    const channel = channelOf(feedRss(doc([item({ guid: 'slides' })])))
    expect(text(channel.description)).toBe('Radio')
    expect(Object.keys(channel.item).sort()).toEqual(['description', 'guid', 'itunes:explicit', 'pubDate', 'title'])
    expect(text(channel.item.pubDate)).toBe('Sun, 01 Mar 2026 08:30:00 GMT')
    expect(text(channel.lastBuildDate)).toBe('Mon, 02 Mar 2026 10:00:00 GMT')
    expect(text(channel.pubDate)).toBe('Sun, 01 Mar 2026 08:30:00 GMT')
  })

  it('has no pubDate without items, and stays well-formed', () => {
    const channel = channelOf(feedRss(doc([])))
    expect(channel.pubDate).toBeUndefined()
    expect(channel.item).toBeUndefined()
  })

  it('escapes every text and replaces characters XML cannot carry', async () => {
    const title = 'A ]]> B <i>c</i> & "d" \u0001 e'
    const body = feedRss(doc([item({ title, description: '<p>x</p>' })], { title: '<Radio & co>' }))
    expect(body).not.toContain('<i>')
    expect(body).not.toContain(']]>')
    const parsed = await rss.parseString(body)
    expect(parsed.title).toBe('<Radio & co>')
    expect(parsed.items[0]!.title).toBe('A ]]> B <i>c</i> & "d" \uFFFD e')
    expect(parsed.items[0]!.content).toBe('&#60;p&#62;x&#60;/p&#62;')
  })
})
