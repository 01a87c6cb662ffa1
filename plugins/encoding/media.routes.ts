import { type HttpContext, type Router, type StoragePort, notFound } from '../../src/kernel/index.js'
import { type FileView, fileQueries, ownFile } from '../files/index.js'
import { CACHE, servePlaylist, serveStored } from './media-delivery.js'
import { MEDIA_TOKEN_PURPOSE, requireGrantFor } from './media-token.js'
import { typeOf } from './media-transfer.js'
import { renditionQueries } from './rendition.queries.js'
import type { ShownRenditions } from './shown-renditions.service.js'
import type { EncodingDeps } from './encoding.deps.js'

export const MEDIA_PERMISSION =
  'the owner (Digest), or anyone holding a media token of the file (`?token=`, from an answer asked `with-token`); anyone else gets 404'

/** A file name inside the HLS folder: lowercase, no path. */
const HLS_NAME = /^[a-z0-9][a-z0-9_.-]{0,127}$/

/**
 * The file whose media a request asks: the caller's own (Digest), or the one its token is
 * bound to (403 for a token of another file; 404 when that file is gone).
 */
export async function mediaFile(c: HttpContext): Promise<FileView> {
  if (!c.token) return ownFile(c)
  const slug = c.param('file')
  const id = requireGrantFor(c, slug)
  const file = await fileQueries.fileBySlug(c.reader, slug)
  if (!file || file.id !== id) throw notFound(`No file "${slug}".`)
  return file
}

/** The token a request came with (to put in the URIs of the playlists it fetches). */
function requestToken(c: HttpContext): string | undefined {
  if (!c.token) return undefined
  const token = c.query().token
  return typeof token === 'string' ? token : Array.isArray(token) ? token.at(-1) : undefined
}

/** The file's HLS folder (a storage prefix), or 404. */
async function hlsFolder(c: HttpContext, file: FileView): Promise<string> {
  const hls = (await renditionQueries.ofFile(c.reader, file.id)).find((r) => r.kind === 'hls')
  if (!hls) throw notFound('This file has no HLS rendition (yet).')
  return hls.storageKey
}

/** Where a set of media routes is mounted and how it finds the file whose media it serves. */
export interface MediaMount {
  /** The path prefix, with the parameter naming the object (`/file/:file`, `/resource/:resource`). */
  prefix: string
  /** The file whose media the request asks, once the caller may have it (404/403 otherwise). */
  resolve: (c: HttpContext) => Promise<FileView>
  /** The permission sentence of every route (docs/authorization.md). */
  permission: string
  /** The purpose of the tokens these routes accept (`?token=`). */
  tokenPurpose: string
  /** Requests without credentials reach `resolve` too (RouteOptions.anonymous), which decides. */
  anonymous?: boolean
}

/**
 * Media delivery: the thumbnail, snapshots, flavors and HLS rendition of a file, streamed
 * from storage with byte ranges, under `mount.prefix` (the file's own addresses, and the
 * resources publishing it). A helper of route factories (`mediaRoutes` here, `resourceMediaRoutes`
 * of the resources plugin), which hand it what they were given.
 */
export function mountMedia(r: Router, storage: StoragePort, shown: ShownRenditions, mount: MediaMount): void {
  const options = (produces: string) => ({
    permission: mount.permission,
    produces,
    tokenPurpose: mount.tokenPurpose,
    anonymous: mount.anonymous ?? false,
  })
  const { prefix, resolve } = mount

  r.get(
    `${prefix}/thumbnail/thumb.jpg`,
    async (c) => {
      const file = await resolve(c)
      const thumbnail = (await shown.thumbnails([file.id])).get(file.id)
      if (!thumbnail) throw notFound('This file has no thumbnail (yet).')
      return serveStored(storage, c, thumbnail.storageKey, thumbnail.mimeType, CACHE.pictures)
    },
    options('image/jpeg'),
  )

  r.get(
    `${prefix}/snapshots/:snapshot.jpg`,
    async (c) => {
      const file = await resolve(c)
      const snapshot = await renditionQueries.one(c.reader, file.id, 'snapshot', c.param('snapshot'))
      if (!snapshot) throw notFound(`This file has no snapshot "${c.param('snapshot')}".`)
      return serveStored(storage, c, snapshot.storageKey, snapshot.mimeType, CACHE.pictures)
    },
    options('image/jpeg'),
  )

  r.get(
    `${prefix}/flavor/video/:flavor.mp4`,
    async (c) => {
      const file = await resolve(c)
      const flavor = await renditionQueries.one(c.reader, file.id, 'flavor', c.param('flavor'))
      if (!flavor || !flavor.mimeType.startsWith('video/')) {
        throw notFound(`This file has no video flavor "${c.param('flavor')}".`)
      }
      return serveStored(storage, c, flavor.storageKey, flavor.mimeType, CACHE.media)
    },
    options('video/mp4'),
  )

  r.get(
    `${prefix}/flavor/audio/:track`,
    async (c) => {
      const file = await resolve(c)
      const track = c.param('track')
      const dot = track.lastIndexOf('.')
      const flavor = dot > 0 ? await renditionQueries.one(c.reader, file.id, 'flavor', track.slice(0, dot)) : undefined
      // The extension must be the stored one: `aac.m4a`, `mp3.mp3`.
      if (!flavor || !flavor.mimeType.startsWith('audio/') || !flavor.storageKey.endsWith(track.slice(dot))) {
        throw notFound(`This file has no audio flavor "${track}".`)
      }
      return serveStored(storage, c, flavor.storageKey, flavor.mimeType, CACHE.media)
    },
    options('audio/mp4'),
  )

  // The master playlist, and any other file at the top of the HLS folder.
  r.get(
    `${prefix}/hls/:entry`,
    async (c) => {
      const file = await resolve(c)
      const entry = c.param('entry')
      if (!HLS_NAME.test(entry)) throw notFound(`No HLS file "${entry}".`)
      const key = `${await hlsFolder(c, file)}${entry}`
      if (entry.endsWith('.m3u8')) return servePlaylist(storage, c, key, requestToken(c))
      return serveStored(storage, c, key, typeOf(entry), CACHE.media)
    },
    options('application/vnd.apple.mpegurl'),
  )

  // A variant: its playlist and segments.
  r.get(
    `${prefix}/hls/:variant/:segment`,
    async (c) => {
      const file = await resolve(c)
      const [variant, segment] = [c.param('variant'), c.param('segment')]
      if (!HLS_NAME.test(variant) || !HLS_NAME.test(segment)) throw notFound(`No HLS file "${variant}/${segment}".`)
      const key = `${await hlsFolder(c, file)}${variant}/${segment}`
      if (segment.endsWith('.m3u8')) return servePlaylist(storage, c, key, requestToken(c))
      return serveStored(storage, c, key, typeOf(segment), CACHE.media)
    },
    options('video/mp2t'),
  )
}

/** The media of the caller's own files (Digest), or of the file a media token opens. */
export function mediaRoutes(r: Router, deps: EncodingDeps): void {
  mountMedia(r, deps.storage, deps.shown, {
    prefix: '/file/:file',
    resolve: mediaFile,
    permission: MEDIA_PERMISSION,
    tokenPurpose: MEDIA_TOKEN_PURPOSE,
  })
}
