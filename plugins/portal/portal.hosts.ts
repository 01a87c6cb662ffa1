import type { Reader } from '../../src/kernel/index.js'
import { mediaQueries } from '../media/index.js'

/** Where the kernel mounts a media's own domain: its portal's path. */
export const portalPrefix = (mediaSlug: string): string => `/portal/${encodeURIComponent(mediaSlug)}`

/**
 * The host mapping of portals (`PluginContext.hosts`): a media's domain (unique, lowercase)
 * serves that media's portal, any other host name the API as usual. Not cached: it is one
 * lookup on the unique index of `medias.domain`, made only for requests whose Host is not the
 * public base URL's, and a cache would have to follow domain changes across processes.
 */
export function portalHosts(reader: Reader): (host: string) => Promise<string | null> {
  return async (host) => {
    const media = await mediaQueries.byDomain(reader, host)
    return media ? portalPrefix(media.slug) : null
  }
}
