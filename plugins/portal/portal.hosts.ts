import { mediaQueries } from '../media/index.js'
import type { PortalDeps } from './portal.deps.js'

/** Where the kernel mounts a media's own domain: its portal's path. */
export const portalPrefix = (mediaSlug: string): string => `/portal/${encodeURIComponent(mediaSlug)}`

/** Most host names the cache keeps: a flood of made-up Host headers cannot grow it further. */
export const HOST_CACHE_SIZE = 1000

/**
 * Recent answers of a lookup by host name, for `ttlMs` each, misses included (requests that
 * reach the API under another name than the base URL's would otherwise each pay a query).
 * Invalidation is the TTL alone: every serving process sees a new or changed domain within it.
 */
export class HostCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly size = HOST_CACHE_SIZE,
  ) {}

  /** The cached answer for `host`, or the one `load` gives (then kept). */
  async get(host: string, load: (host: string) => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load(host)
    const hit = this.entries.get(host)
    const now = this.now()
    if (hit && hit.until > now) return hit.value
    const value = await load(host)
    this.entries.delete(host)
    // Full: the oldest entry goes (a Map keeps insertion order).
    if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(host, { value, until: now + this.ttlMs })
    return value
  }
}

/**
 * The host mapping of portals (`PluginContext.hosts`): a media's domain (unique, lowercase)
 * serves that media's portal, any other host name the API as usual. One lookup on the unique
 * index of `medias.domain`, made only for requests whose Host is not the public base URL's,
 * kept `portal.host_cache_ttl` seconds (0: not cached).
 */
export function portalHosts(deps: PortalDeps): (host: string) => Promise<string | null> {
  const cache = new HostCache<string | null>(deps.config.host_cache_ttl * 1000)
  const load = async (host: string) => {
    const media = await mediaQueries.byDomain(deps.reader, host)
    return media ? portalPrefix(media.slug) : null
  }
  return (host) => cache.get(host, load)
}
