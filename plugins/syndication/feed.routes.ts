import { createHash } from 'node:crypto'
import { type HttpContext, type Reply, type Router, notFound, reply } from '../../src/kernel/index.js'
import { type MediaView, mediaQueries } from '../media/index.js'
import { channelQueries } from '../channels/index.js'
import { feedItems } from './feed.items.js'
import { resourceQueries } from '../resources/index.js'
import { feedRss } from './feed.rss.js'
import type { SyndicationDeps } from './syndication.deps.js'
import { FEED_CHANNEL_TYPE, FEED_FILE, feedUrl } from '../channels/index.js'

/** The most items a feed lists (the newest): enough for any reader's history, small enough to build on each miss. */
export const FEED_LIMIT = 100

/** What a feed is answered as. */
export const FEED_CONTENT_TYPE = 'application/rss+xml; charset=utf-8'

/** Seconds readers and shared caches may keep a feed (also its `ttl`, in minutes). */
export const FEED_MAX_AGE = 300

const HOUR_MS = 3600_000

/** The media and its online syndication channel named by the path; one 404 for every other case. */
async function feedMedia(c: HttpContext): Promise<MediaView> {
  const reader = c.reader
  const [mediaSlug, channelSlug] = [c.param('media'), c.param('channel')]
  const media = await mediaQueries.bySlug(reader, mediaSlug)
  const channel = media && (await channelQueries.bySlug(reader, media.id, channelSlug))
  if (!media || !channel || channel.type !== FEED_CHANNEL_TYPE || !channel.isOnline) {
    throw notFound(`No feed "${channelSlug}" in media "${mediaSlug}": no such online syndication channel.`)
  }
  return media
}

/** Whether `If-None-Match` names this entity tag (`*` names any; weak tags compare by their value). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const value = tag.trim()
    return value === '*' || value.replace(/^W\//, '') === etag
  })
}

/**
 * The answer of a feed: 200 with the document, or 304 when the client's copy is this one.
 * The ETag is a hash of the bytes (they change with the items, the channels' flavors, the
 * media, and each hour with the media tokens); `If-Modified-Since` is not evaluated, as no
 * date covers every change.
 */
function feedReply(c: HttpContext, body: string, lastBuild: Date): Reply {
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`
  const headers = {
    ETag: etag,
    'Last-Modified': lastBuild.toUTCString(),
    'Cache-Control': `public, max-age=${FEED_MAX_AGE}`,
  }
  if (matches(c.req.headers['if-none-match'], etag)) return { status: 304, headers }
  return reply.raw(200, body, FEED_CONTENT_TYPE, headers)
}

/** `GET /media/<media>/channel/<channel>/feed.rss`: the RSS feed of an online syndication channel. */
export function feedRoutes(r: Router, deps: SyndicationDeps): void {
  r.get(
    `/media/:media/channel/:channel/${FEED_FILE}`,
    async (c) => {
      const media = await feedMedia(c)
      const entries = await resourceQueries.newestPublic(c.reader, media.id, FEED_LIMIT)
      // Built when its media tokens were (the hour), or later when an item changed since.
      const signedAt = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
      const lastBuild = new Date(Math.max(signedAt, ...entries.map((e) => e.updatedAt.getTime())))
      const body = feedRss({
        title: media.name,
        link: c.links.url('portal', media.slug),
        description: media.description,
        self: feedUrl(c.links, media.slug, c.param('channel')),
        lastBuild,
        ttlMinutes: FEED_MAX_AGE / 60,
        items: await feedItems(deps, c, media.id, entries),
      })
      return feedReply(c, body, lastBuild)
    },
    {
      public: true,
      permission:
        'public: feed readers and podcast apps cannot do Digest; only online syndication channels have a feed, listing visible resources of visible streams',
      produces: 'application/rss+xml',
    },
  )
}
