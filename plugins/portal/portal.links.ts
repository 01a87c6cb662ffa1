import type { HttpContext } from '../../src/kernel/index.js'
import { PORTAL_STYLE_FILE } from './portal.style.js'

/**
 * The addresses of one portal's pages, as the request reached it: on the media's own domain
 * (the kernel mounted `/portal/<media>` as `c.hostPrefix`) they start at `/`; through the path
 * fallback they start at `<base path>/portal/<media>`. Root-relative, so they stay on the host
 * the visitor used.
 */
export class PortalLinks {
  /** The path of the portal's home, without a trailing slash ('' on the media's own domain). */
  private readonly root: string

  constructor(c: HttpContext, mediaSlug: string) {
    this.root = c.hostPrefix ? '' : `${c.links.pathPrefix}/portal/${encodeURIComponent(mediaSlug)}`
  }

  private at(path: string, page = 1): string {
    return `${this.root}${path}${page > 1 ? `?page=${page}` : ''}`
  }

  /** The home page (page `page` of its streams). */
  home(page = 1): string {
    return `${this.root || '/'}${page > 1 ? `?page=${page}` : ''}`
  }

  /** A stream's page (page `page` of its resources). */
  stream(slug: string, page = 1): string {
    return this.at(`/stream/${encodeURIComponent(slug)}`, page)
  }

  /** A resource's page. */
  resource(slug: string): string {
    return this.at(`/resource/${encodeURIComponent(slug)}`)
  }

  /** The stylesheet (content-hashed). */
  stylesheet(): string {
    return this.at(`/assets/${PORTAL_STYLE_FILE}`)
  }
}
