import { type EventHandler, type EventName, type PluginContext, definePlugin } from '../../src/kernel/index.js'
import init from './migrations/20261211-widgets-init.js'
import watch from './migrations/20270129-widgets-watch.js'
import { WidgetEntity } from './widget.entity.js'
import { resourceWidgets } from './resource-widgets.service.js'
import { widgetListeners } from './widget.listeners.js'
import type { WidgetSummary } from './widget.queries.js'
import { widgetRoutes } from './widget.routes.js'
import type { WidgetsDeps } from './widgets.deps.js'

export { type Widget, WidgetEntity } from './widget.entity.js'
export { type EmbedCodes, embedCode, embedCodes, escapeHtml } from './widget.embed.js'
export { type WidgetSummary, type WidgetView, widgetQueries } from './widget.queries.js'
export { SIZE_MAX, type WidgetSize, formatSize, parseSize } from './widget.size.js'
export { widgetUrl } from './widget.xml.js'

/**
 * Widgets, the embeddable players of a resource: `GET/POST /resource/<slug>/widgets`,
 * `GET/PUT/DELETE /resource/<slug>/widgets/<widget>`, each with a size, an optional player
 * theme and behavior of the resource's platform, and permanent embed codes pointing at
 * `/embed/<widget>`. A resource's answers list its widgets (`resource.describe`); they go
 * with their resource, and lose a theme or behavior that is deleted.
 */
export default definePlugin({
  name: 'widgets',
  dependsOn: ['resources', 'players'],
  entities: [WidgetEntity],
  migrations: [init, watch],
  register(ctx) {
    ctx.routes(widgetRoutes)
    const deps: WidgetsDeps = {
      links: ctx.links,
      widgetsOf: resourceWidgets(ctx.reader, ctx.cache<WidgetSummary[]>({ tables: ['widgets'] })),
    }
    subscribe(ctx, widgetListeners(deps))
  },
})

/** Subscribes each handler of `listeners` to its event, in their order. */
function subscribe<E extends EventName>(ctx: PluginContext<unknown>, listeners: { [K in E]: EventHandler<K> }): void {
  for (const event of Object.keys(listeners) as E[]) ctx.on(event, listeners[event])
}
