import type { PluginContext } from '../../src/kernel/index.js'
import { embedCode } from './widget.embed.js'
import { WidgetEntity } from './widget.entity.js'
import type { ResourceWidgets } from './resource-widgets.service.js'

/**
 * What widgets do when what they belong to or refer to changes. The foreign keys cascade
 * (resource) and set null (theme, behavior) too; acting explicitly, inside the deleting
 * transaction, keeps the outcome independent of them.
 */
export function listenToOwners(ctx: PluginContext, widgetsOf: ResourceWidgets): void {
  ctx.on('resource.deleting', async ({ em, ids }) => {
    if (ids.length) await em.nativeDelete(WidgetEntity, { resource: { $in: ids } })
  })
  ctx.on('player_theme.deleting', async ({ em, ids }) => {
    if (ids.length) await em.nativeUpdate(WidgetEntity, { playerTheme: { $in: ids } }, { playerTheme: null })
  })
  ctx.on('player_behavior.deleting', async ({ em, ids }) => {
    if (ids.length) await em.nativeUpdate(WidgetEntity, { playerBehavior: { $in: ids } }, { playerBehavior: null })
  })
  // A resource's answers list its widgets by name with the iframe code, URL-encoded (spec: Resource).
  ctx.on('resource.describe', async ({ resources, extras }) => {
    if (resources.length === 0) return
    const widgets = await widgetsOf(resources.map((resource) => resource.id))
    for (const [resourceId, ofResource] of widgets) {
      const shown = extras.get(resourceId)?.widgets
      for (const widget of ofResource) shown?.push({ name: widget.name, code: embedCode(ctx.links, widget) })
    }
  })
}
