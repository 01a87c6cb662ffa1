import type { EventHandler } from '../../src/kernel/index.js'
import { embedCode } from './widget.embed.js'
import { WidgetEntity } from './widget.entity.js'
import type { WidgetsDeps } from './widgets.deps.js'

/** The events of the other plugins widgets follow. */
type Sources = 'resource.deleting' | 'player_theme.deleting' | 'player_behavior.deleting' | 'resource.describe'

/** The handler of each event widgets listen to, by event (index.ts subscribes them). */
export type WidgetListeners = { [E in Sources]: EventHandler<E> }

/**
 * What widgets do when what they belong to or refer to changes. The foreign keys cascade
 * (resource) and set null (theme, behavior) too; acting explicitly, inside the deleting
 * transaction, keeps the outcome independent of them.
 */
export function widgetListeners(deps: WidgetsDeps): WidgetListeners {
  return {
    'resource.deleting': async ({ em, ids }) => {
      if (ids.length) await em.nativeDelete(WidgetEntity, { resource: { $in: ids } })
    },
    'player_theme.deleting': async ({ em, ids }) => {
      if (ids.length) await em.nativeUpdate(WidgetEntity, { playerTheme: { $in: ids } }, { playerTheme: null })
    },
    'player_behavior.deleting': async ({ em, ids }) => {
      if (ids.length) await em.nativeUpdate(WidgetEntity, { playerBehavior: { $in: ids } }, { playerBehavior: null })
    },
    // A resource's answers list its widgets by name with the iframe code, URL-encoded (spec: Resource).
    'resource.describe': async ({ resources, extras }) => {
      if (resources.length === 0) return
      const widgets = await deps.widgetsOf(resources.map((resource) => resource.id))
      for (const [resourceId, ofResource] of widgets) {
        const shown = extras.get(resourceId)?.widgets
        for (const widget of ofResource) shown?.push({ name: widget.name, code: embedCode(deps.links, widget) })
      }
    },
  }
}
