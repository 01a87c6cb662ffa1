import {
  type FieldReader,
  type HttpContext,
  type Reply,
  type Router,
  forbidden,
  invalid,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import type { Group } from './group.entity.js'
import {
  addMember,
  createGroup,
  deleteGroup,
  groupCount,
  groupPage,
  memberCount,
  memberPage,
  removeMember,
} from './group.service.js'
import { groupInfoXml, groupListXml, groupMembersXml } from './group.xml.js'
import { groupFromPath } from './identity.lookup.js'
import { UserEntity } from './user.entity.js'

function readName(v: FieldReader): string | undefined {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  v.done()
  return name
}

/** The group in the path for a member endpoint: members are users, so naming them also needs user.view. */
async function memberGroup(c: HttpContext, flag: string): Promise<Group> {
  const group = await groupFromPath(c, flag)
  if (!c.authz.hasProfileFlag(c.principal, 'user.view')) {
    throw forbidden('This needs the "user.view" permission of your profile: the members are users.')
  }
  return group
}

/** The member list every member endpoint answers with (Range applies). */
async function members(c: HttpContext, group: Group, status: number): Promise<Reply> {
  const users = await c.list(await memberCount(c.em, group), (page) => memberPage(c.em, group, page))
  return reply.xml(status, groupMembersXml(c.links, group.slug, users))
}

/** Groups and their members. */
export function groupRoutes(r: Router): void {
  r.get(
    '/platform/:platform/groups',
    async (c) => {
      const platform = await platformFromPath(c, 'group.view', { profile: true })
      const groups = await c.list(await groupCount(c.em, platform.id), (page) => groupPage(c.em, platform.id, page))
      return reply.xml(200, groupListXml(c.links, platform.slug, groups))
    },
    { permission: 'profile group.view on the platform' },
  )

  r.post(
    '/platform/:platform/groups',
    async (c) => {
      const platform = await platformFromPath(c, 'group.create', { profile: true })
      const name = readName(c.fields(await c.form(), 'create'))!
      return reply.xml(201, groupInfoXml(c.links, await createGroup(c.em, platform.id, name)))
    },
    { permission: 'profile group.create on the platform' },
  )

  r.get('/group/:group', async (c) => reply.xml(200, groupInfoXml(c.links, await groupFromPath(c, 'group.view'))), {
    permission: "profile group.view on the group's platform",
  })

  r.put(
    '/group/:group',
    async (c) => {
      const group = await groupFromPath(c, 'group.edit')
      const name = readName(c.fields(await c.form(), 'update'))
      if (name !== undefined) group.name = name
      await c.em.flush()
      return reply.xml(200, groupInfoXml(c.links, group))
    },
    { permission: "profile group.edit on the group's platform" },
  )

  r.delete(
    '/group/:group',
    async (c) => {
      await deleteGroup(c.em, await groupFromPath(c, 'group.delete'))
      return reply.noContent()
    },
    { permission: "profile group.delete on the group's platform" },
  )

  r.get('/group/:group/users', async (c) => members(c, await memberGroup(c, 'group.view'), 200), {
    permission: "profile group.view and user.view on the group's platform",
  })

  r.post(
    '/group/:group/users',
    async (c) => {
      const group = await memberGroup(c, 'group.edit')
      const v = c.fields(await c.form(), 'create')
      const username = v.string('username', { required: true, max: 128 })!
      v.done()
      // Only users of the group's own platform can join; others do not exist for this group.
      const user = await c.em.findOne(UserEntity, { username, platform: group.platform.id })
      if (!user) throw invalid({ username: "no user of this name on the group's platform" })
      await addMember(c.em, group, user)
      return members(c, group, 201)
    },
    { permission: "profile group.edit and user.view on the group's platform" },
  )

  r.delete(
    '/group/:group/user/:username',
    async (c) => {
      const group = await memberGroup(c, 'group.edit')
      const username = c.param('username')
      const user = await c.em.findOne(UserEntity, { username, platform: group.platform.id })
      if (!user || !(await removeMember(c.em, group, user))) {
        throw notFound(`"${username}" is not a member of group "${group.slug}".`)
      }
      return members(c, group, 200)
    },
    { permission: "profile group.edit and user.view on the group's platform" },
  )
}
