import type { Readable } from 'node:stream'
import {
  type HttpContext,
  type Reply,
  type StoragePort,
  byteHeaders,
  byteRange,
  notFound,
  reply,
  validatorsOf,
} from '../../src/kernel/index.js'

/** Seconds clients may keep what they fetched (API-DECISIONS: thumbnails may be cached client-side). */
export const CACHE = {
  /** Thumbnails and snapshots: their URLs change when they do (`v=`). */
  pictures: 86400,
  /** Flavors and HLS segments. */
  media: 3600,
  /** Playlists: short, they carry the token of the request. */
  playlists: 60,
} as const

/**
 * Most seconds a shared cache (a CDN, a proxy) keeps a public asset: unpublishing stops
 * delivery here at once, and there within this time (then they revalidate with the ETag).
 */
const PUBLIC_MAX_AGE = 300

/**
 * `Cache-Control` of a media answer. One to a request with credentials or a token is the
 * caller's: `private`. One to a request with neither can only be a public asset (the media of
 * a published resource, RouteOptions.anonymous): shared caches may keep it, briefly.
 */
function cacheControl(c: HttpContext, maxAge: number): string {
  if (c.user || c.token) return `private, max-age=${maxAge}`
  return `public, max-age=${Math.min(maxAge, PUBLIC_MAX_AGE)}`
}

/** Largest playlist read whole to put the token in its URIs. */
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024

/** Ends the storage stream when the client goes away (piping alone would leave it open). */
function closeWithResponse(c: HttpContext, body: Readable): Readable {
  c.res.once('close', () => body.destroy())
  return body
}

/**
 * Answers a stored object with byte ranges (RFC 9110): 200 whole or 206 with
 * `Content-Range`, `Accept-Ranges: bytes`, validators (`ETag`, `Last-Modified`; `If-Range`
 * honoured, `If-None-Match` answered 304), 416 for a range past the end. 404 when absent.
 */
export async function serveStored(
  storage: StoragePort,
  c: HttpContext,
  key: string,
  type: string,
  maxAge: number,
): Promise<Reply> {
  const cache = cacheControl(c, maxAge)
  const stat = await storage.stat(key)
  if (!stat) throw notFound('Nothing is stored at this address (yet).')
  const validators = validatorsOf(stat)
  const ifNoneMatch = c.req.headers['if-none-match']
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === validators.etag)) {
    return { status: 304, headers: { ETag: validators.etag, 'Cache-Control': cache } }
  }
  const ifRange = c.req.headers['if-range']
  const range = byteRange(c.req.headers.range, stat.size, typeof ifRange === 'string' ? ifRange : undefined, validators)
  const body = closeWithResponse(c, await storage.read(key, range ?? undefined))
  return reply.raw(range ? 206 : 200, body, type, {
    ...byteHeaders(stat.size, range, validators),
    'Cache-Control': cache,
  })
}

/** Reads a small stored object whole (a playlist), or 404. */
async function readSmall(storage: StoragePort, key: string): Promise<string> {
  const stat = await storage.stat(key)
  if (!stat) throw notFound('Nothing is stored at this address (yet).')
  if (stat.size > MAX_PLAYLIST_BYTES) throw new Error(`playlist ${key} is larger than ${MAX_PLAYLIST_BYTES} bytes`)
  const chunks: Buffer[] = []
  for await (const chunk of await storage.read(key)) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** A relative URI of a playlist with `token=` added (absolute ones point elsewhere: kept). */
function withToken(uri: string, token: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || uri.startsWith('/')) return uri
  return `${uri}${uri.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`
}

/**
 * An HLS playlist whose URIs (variant playlists, segments, `URI="..."` attributes such as
 * init segments and keys) carry `token`, so a player that fetched it with a token fetches
 * everything it names with that token too.
 */
export function tokenizePlaylist(playlist: string, token: string): string {
  return playlist
    .split('\n')
    .map((line) => {
      const trimmed = line.trim()
      if (!trimmed) return line
      if (trimmed.startsWith('#'))
        return line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${withToken(uri, token)}"`)
      return withToken(trimmed, token)
    })
    .join('\n')
}

/**
 * Answers an HLS playlist: as stored (byte ranges and all) for Digest requests, with the
 * token put in its URIs for token requests.
 */
export async function servePlaylist(
  storage: StoragePort,
  c: HttpContext,
  key: string,
  token: string | undefined,
): Promise<Reply> {
  const type = 'application/vnd.apple.mpegurl'
  if (token === undefined) return serveStored(storage, c, key, type, CACHE.playlists)
  const body = tokenizePlaylist(await readSmall(storage, key), token)
  return reply.raw(200, body, type, { 'Cache-Control': cacheControl(c, CACHE.playlists) })
}

/** `attachment; filename=...` with the name made safe for the header (RFC 6266 `filename*`): a download. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}
