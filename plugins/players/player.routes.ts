import { type Emit, type HttpContext, notFound, reply, type Router } from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { readPlayerFields } from './player.fields.js'
import { playerFlag, playerFromPath } from './player.lookup.js'
import { createPlayer, deletePlayer, updatePlayer } from './player.service.js'
import { playerInfoXml, playerListXml } from './player.xml.js'
import type { PlayerFamily } from './players.types.js'
import type { PlayersDeps } from './players.deps.js'
import { BEHAVIORS } from './player-behavior.family.js'
import { THEMES } from './player-theme.family.js'

/** The routes of player themes, then of player behaviors. */
export function playerRoutes(r: Router, deps: PlayersDeps): void {
  mountFamily(r, THEMES, deps.emit)
  mountFamily(r, BEHAVIORS, deps.emit)
}

/**
 * The routes of a family, under its platform: list and info (the spec), and create, partial
 * update and delete (an extension of the spec). Reading needs only `platform.view`; writing,
 * the profile flags `<kind>.create`, `<kind>.edit`, `<kind>.delete`, checked before the fields.
 */
function mountFamily<S extends object>(r: Router, family: PlayerFamily<S>, emit: Emit): void {
  const listPath = `/platform/:platform/${family.kind}`
  const onePath = `${listPath}/:${family.param}`
  const create = playerFlag(family.kind, 'create')
  const edit = playerFlag(family.kind, 'edit')
  const remove = playerFlag(family.kind, 'delete')
  const writes = (flag: string) => `platform.view on the platform, and profile ${flag}`

  const info = async (c: HttpContext, id: number, status: number) => {
    const found = await family.queries.byId(c.reader, id)
    if (!found) throw notFound(`No such ${family.label}.`)
    return reply.xml(status, playerInfoXml(c.links, family, found))
  }

  r.get(
    listPath,
    async (c) => {
      const platform = await platformFromPath(c, 'platform.view')
      const reader = c.reader
      const items = await c.list(await family.queries.count(reader, platform.id), (page) =>
        family.queries.page(reader, platform.id, page.offset, page.limit),
      )
      return reply.xml(200, playerListXml(c.links, family, platform.slug, items))
    },
    { permission: `platform.view on the platform (no profile flag: whoever sees the platform reads them)` },
  )

  r.post(
    listPath,
    async (c) => {
      const platform = await platformFromPath(c, create, { profile: true })
      const input = readPlayerFields(c.fields(await c.form(), 'create'), family)
      const id = await createPlayer(c.em, family, platform.id, { ...input, name: input.name! })
      return info(c, id, 201)
    },
    { permission: writes(create) },
  )

  r.get(
    onePath,
    async (c) => {
      const platform = await platformFromPath(c, 'platform.view')
      return info(c, (await playerFromPath(c, family, platform)).id, 200)
    },
    { permission: 'platform.view on the platform (no profile flag)' },
  )

  r.put(
    onePath,
    async (c) => {
      const platform = await platformFromPath(c, edit, { profile: true })
      const current = await playerFromPath(c, family, platform)
      const changes = readPlayerFields(c.fields(await c.form(), 'update'), family)
      await updatePlayer(c.em, family, current.id, changes)
      return info(c, current.id, 200)
    },
    { permission: writes(edit) },
  )

  r.delete(
    onePath,
    async (c) => {
      const platform = await platformFromPath(c, remove, { profile: true })
      const current = await playerFromPath(c, family, platform)
      await deletePlayer(emit, c.em, family, current.id)
      return reply.noContent()
    },
    { permission: writes(remove) },
  )
}
