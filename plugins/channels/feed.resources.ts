/**
 * The one place the channels plugin reaches into the resources plugin, for its feeds.
 *
 * The resources plugin depends on this one (it asks `channelOffer` what a resource offers),
 * so channels cannot declare `resources` in `dependsOn` (the kernel refuses the cycle), nor
 * import it statically without an import cycle between the two modules. Feeds need what it
 * alone knows (the media URLs of a resource, its media tokens), so they load it lazily, on
 * the first feed request, when every plugin module is loaded; and the feed route is only
 * declared when the resources plugin is enabled (`feedsEnabled`).
 */

import type * as Resources from '../resources/index.js'

type ResourcesApi = typeof Resources

let loading: Promise<ResourcesApi> | undefined

/** The resources plugin's public surface (its `index.ts`), loaded once per process. */
export function resourcesApi(): Promise<ResourcesApi> {
  loading ??= import('../resources/index.js')
  return loading
}

/** Whether a kernel serves feeds: only with the resources plugin enabled (there is nothing to list without it). */
export const feedsEnabled = (enabledPlugins: readonly string[]): boolean => enabledPlugins.includes('resources')
