import type { ProcessCache, Reader } from '../../src/kernel/index.js'
import { type WidgetSummary, widgetQueries } from './widget.queries.js'

/** The widgets of resources, by resource id, each resource's oldest first (none: an empty list). */
export type ResourceWidgets = (resourceIds: readonly number[]) => Promise<Map<number, WidgetSummary[]>>

/**
 * Each resource's widgets kept in `cache` until a widget changes: every answer showing a
 * resource lists them (most resources have none, kept as such), and they seldom change.
 */
export function resourceWidgets(reader: Reader, cache: ProcessCache<WidgetSummary[]>): ResourceWidgets {
  return (resourceIds) =>
    cache.getMany(resourceIds, async (missing) => {
      const byResource = new Map<number, WidgetSummary[]>(missing.map((id) => [id, []]))
      for (const widget of await widgetQueries.ofResources(reader, missing))
        byResource.get(widget.resourceId)!.push(widget)
      return byResource
    })
}
