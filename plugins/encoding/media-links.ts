import type { LinkBuilder, Tokens } from '../../src/kernel/index.js'
import type { FileView } from '../files/index.js'
import { mediaToken } from './media-token.js'
import type { RenditionView } from './rendition.queries.js'

/**
 * The URLs of a file's media, as answers show them. Each carries `v=<rendition id>`: a new
 * encoding, another selected snapshot or a new custom image gives a new URL, so what a client
 * cached under the old one (thumbnails are cacheable for a day) is never shown in its place.
 * With `withToken`, a signed token too (`token=`), for clients that cannot send Digest.
 */
export class MediaLinks {
  constructor(
    private readonly links: LinkBuilder,
    private readonly tokens: Tokens,
    private readonly tokenTtl: number,
  ) {}

  private query(file: FileView, rendition: RenditionView, withToken: boolean): string {
    const params = new URLSearchParams({ v: String(rendition.id) })
    if (withToken) params.set('token', this.token(file))
    return `?${params.toString()}`
  }

  /** A media token for the file (see `mediaToken`). */
  token(file: FileView): string {
    return mediaToken(this.tokens, file, this.tokenTtl)
  }

  /** `/file/<slug>/thumbnail/thumb.jpg`. */
  thumbnail(file: FileView, rendition: RenditionView, withToken: boolean): string {
    return this.links.url('file', file.slug, 'thumbnail', 'thumb.jpg') + this.query(file, rendition, withToken)
  }

  /** `/file/<slug>/snapshots/<id>.jpg`. */
  snapshot(file: FileView, rendition: RenditionView, withToken: boolean): string {
    return (
      this.links.url('file', file.slug, 'snapshots', `${rendition.name}.jpg`) + this.query(file, rendition, withToken)
    )
  }

  /** `/file/<slug>/flavor/video/<name>.mp4`, `/file/<slug>/flavor/audio/<name>.<stored extension>`. */
  flavor(file: FileView, rendition: RenditionView, withToken: boolean): string {
    const track = rendition.mimeType.startsWith('audio/')
      ? ['audio', `${rendition.name}${rendition.storageKey.slice(rendition.storageKey.lastIndexOf('.'))}`]
      : ['video', `${rendition.name}.mp4`]
    return this.links.url('file', file.slug, 'flavor', ...track) + this.query(file, rendition, withToken)
  }

  /** `/file/<slug>/hls/master.m3u8`. */
  hls(file: FileView, rendition: RenditionView, withToken: boolean): string {
    return this.links.url('file', file.slug, 'hls', 'master.m3u8') + this.query(file, rendition, withToken)
  }

  /** `/file/<slug>/source`: the uploaded original (no `v=`: a file's original never changes). */
  source(file: FileView, withToken: boolean): string {
    const url = this.links.url('file', file.slug, 'source')
    return withToken ? `${url}?${new URLSearchParams({ token: this.token(file) }).toString()}` : url
  }
}
