import { type FieldReader, type HttpContext, type Router, notFound, reply } from '../../src/kernel/index.js'
import { type ResourceView, resourceFromPath } from '../resources/index.js'
import { type WidgetInput, readWidgetFields, requirePlayerFlags } from './widget.fields.js'
import { widgetFromPath } from './widget.lookup.js'
import { type PlayerIds, resolvePlayers } from './widget.players.js'
import { widgetQueries } from './widget.queries.js'
import { createWidget, deleteWidget, updateWidget } from './widget.service.js'
import { widgetInfoXml, widgetListXml } from './widget.xml.js'

const SEES = 'resource.view on the resource (and resource.view_protected unless it and its streams are visible)'
const EDITS =
  'resource.edit on the resource (seeing it as for reading); setting a player_theme also needs profile ' +
  'player_theme.use, a player_behavior profile player_behavior.use'

async function info(c: HttpContext, id: number, status: number) {
  const widget = await widgetQueries.byId(c.reader, id)
  if (!widget) throw notFound('No such widget.')
  return reply.xml(status, widgetInfoXml(c.links, widget))
}

/** The checked fields of a create or an update: 403 for a theme or behavior without its flag, then one 412 for all. */
async function readFields(
  c: HttpContext,
  resource: ResourceView,
  mode: 'create' | 'update',
): Promise<WidgetInput & { ids: PlayerIds }> {
  const form = await c.form()
  requirePlayerFlags(c, form)
  const v: FieldReader = c.fields(form, mode)
  const input = readWidgetFields(v)
  const ids = await resolvePlayers(c.reader, v, resource.platformId, input)
  v.done()
  return { ...input, ids }
}

/** Widgets, the embeddable players of a resource: read by whoever sees it, managed with `resource.edit`. */
export function widgetRoutes(r: Router): void {
  r.get(
    '/resource/:resource/widgets',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.view')
      const reader = c.reader
      const items = await c.list(await widgetQueries.count(reader, resource.id), (page) =>
        widgetQueries.page(reader, resource.id, page.offset, page.limit),
      )
      return reply.xml(200, widgetListXml(c.links, resource.slug, items))
    },
    { permission: SEES },
  )

  r.post(
    '/resource/:resource/widgets',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.edit')
      const input = await readFields(c, resource, 'create')
      const id = await createWidget(c.reader, c.em, resource, {
        name: input.name!,
        size: input.size!,
        players: input.ids,
      })
      return info(c, id, 201)
    },
    { permission: EDITS },
  )

  r.get(
    '/resource/:resource/widgets/:widget',
    async (c) => info(c, (await widgetFromPath(c, await resourceFromPath(c, 'resource.view'))).id, 200),
    { permission: SEES },
  )

  r.put(
    '/resource/:resource/widgets/:widget',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.edit')
      const widget = await widgetFromPath(c, resource)
      const input = await readFields(c, resource, 'update')
      await updateWidget(c.reader, c.em, resource, widget.id, {
        name: input.name,
        size: input.size,
        players: input.ids,
      })
      return info(c, widget.id, 200)
    },
    { permission: EDITS },
  )

  r.delete(
    '/resource/:resource/widgets/:widget',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.edit')
      await deleteWidget(c.em, (await widgetFromPath(c, resource)).id)
      return reply.noContent()
    },
    { permission: 'resource.edit on the resource (seeing it as for reading)' },
  )
}
