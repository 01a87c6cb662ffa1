import { type HttpContext, notFound } from '../../src/kernel/index.js'
import type { ResourceView } from '../resources/index.js'
import { type WidgetView, widgetQueries } from './widget.queries.js'

/**
 * The widget named by the `:widget` path parameter (committed data), under the resource of
 * the path, whose access the caller already passed. A widget of another resource answers 404,
 * as a missing one does, so a path never reaches a widget through a resource it does not hold.
 */
export async function widgetFromPath(c: HttpContext, resource: ResourceView): Promise<WidgetView> {
  const slug = c.param('widget')
  const widget = await widgetQueries.bySlug(c.reader, slug)
  if (!widget || widget.resourceId !== resource.id) throw notFound(`No widget "${slug}".`)
  return widget
}
