import { type HttpContext, type Router, invalid, reply } from '../../src/kernel/index.js'
import { type MediaView, mediaFromPath, mediaRef } from '../media/index.js'
import type { ChannelTypes } from './channel-type.registry.js'
import {
  type ChannelInput,
  type CurrentChannel,
  changesTheming,
  checkTheming,
  readChannelFields,
} from './channel.fields.js'
import { channelFromPath } from './channel.lookup.js'
import { type ChannelView, channelQueries } from './channel.queries.js'
import { type NewChannel, createChannel, deleteChannel, updateChannel } from './channel.service.js'
import { channelInfoXml, channelListXml } from './channel.xml.js'
import type { ChannelsDeps } from './channels.deps.js'

const CHANGE_THEME = 'media.change_theme'

const info = async (c: HttpContext, id: number, status: number, types: ChannelTypes) =>
  reply.xml(status, channelInfoXml(c.links, (await channelQueries.byId(c.reader, id)) as ChannelView, types))

/**
 * The rules beyond each field's own (412 first, then 403): theming only on themed types, and
 * `media.change_theme` to change a theme or a skin.
 */
async function checkRules(
  c: HttpContext,
  media: MediaView,
  current: CurrentChannel | undefined,
  input: ChannelInput,
  types: ChannelTypes,
): Promise<void> {
  const errors = checkTheming(current, input, types)
  if (Object.keys(errors).length) throw invalid(errors)
  if (changesTheming(current, input))
    await c.authz.require(c.principal, CHANGE_THEME, mediaRef(media), { name: media.slug })
}

/** Publication channels of a media: list, create; one channel: info, partial update (201, as the spec shows), delete. */
export function channelRoutes(r: Router, deps: ChannelsDeps): void {
  const { registry } = deps
  r.get(
    '/media/:media/channels',
    async (c) => {
      const media = await mediaFromPath(c, 'media.view')
      const types = await registry.types()
      const reader = c.reader
      const items = await c.list(await channelQueries.count(reader, media.id), (page) =>
        channelQueries.page(reader, media.id, page.offset, page.limit),
      )
      return reply.xml(200, channelListXml(c.links, media.slug, items, types))
    },
    { permission: 'media.view on the media' },
  )

  r.post(
    '/media/:media/channels',
    async (c) => {
      const media = await mediaFromPath(c, 'media.edit')
      const input = readChannelFields(c.fields(await c.form(), 'create')) as NewChannel
      const types = await registry.types()
      await checkRules(c, media, undefined, input, types)
      return info(c, (await createChannel(c.em, media.id, input)).id, 201, types)
    },
    { permission: `media.edit on the media; a theme or skin also needs ${CHANGE_THEME}` },
  )

  r.get(
    '/media/:media/channel/:channel',
    async (c) => {
      const media = await mediaFromPath(c, 'media.view')
      const channel = await channelFromPath(c, media)
      return info(c, channel.id, 200, await registry.types())
    },
    { permission: 'media.view on the media' },
  )

  r.put(
    '/media/:media/channel/:channel',
    async (c) => {
      const media = await mediaFromPath(c, 'media.edit')
      const channel = await channelFromPath(c, media)
      const changes = readChannelFields(c.fields(await c.form(), 'update'))
      const types = await registry.types()
      await checkRules(c, media, channel, changes, types)
      await updateChannel(c.em, channel.id, changes, types)
      return info(c, channel.id, 201, types)
    },
    { permission: `media.edit on the media; changing the theme or skin also needs ${CHANGE_THEME}` },
  )

  r.delete(
    '/media/:media/channel/:channel',
    async (c) => {
      const media = await mediaFromPath(c, 'media.edit')
      await deleteChannel(c.em, (await channelFromPath(c, media)).id)
      return reply.noContent()
    },
    { permission: 'media.edit on the media' },
  )
}
