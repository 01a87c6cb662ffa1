import { type FieldReader, type HttpContext, type Router, notFound, reply } from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { type SentFlags, applyPermissions, readPermissions } from './permission-form.js'
import { createProfileFromForm } from './profile.routes.js'
import { ROLE_FLAGS } from './role-flags.js'
import { type Role, RoleEntity } from './role.entity.js'
import { createRole, deleteRole, requireGrantableRole, roleCount, rolePage } from './role.service.js'
import { roleInfoXml, roleListXml } from './role.xml.js'

/**
 * The role named by the `:role` path parameter (platform loaded), once the caller's
 * profile holds `flag` (`user_role.view`, `user_role.edit`, ...) on its platform. Roles
 * are visible to those who see the platform and hold `user_role.view`: 404 otherwise, 403
 * when they see it but may not do that.
 */
export async function roleFromPath(c: HttpContext, flag: string): Promise<Role> {
  const slug = c.param('role')
  const role = await c.em.findOne(RoleEntity, { slug }, { populate: ['platform'] })
  if (!role) throw notFound(`No role "${slug}".`)
  await c.authz.requireProfile(c.principal, flag, role.platform.id, { name: slug, kind: 'role', see: 'user_role.view' })
  return role
}

function readFields(v: FieldReader): { name?: string; sent: SentFlags } {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  const sent = readPermissions(v, ROLE_FLAGS)
  v.done()
  return { name, sent }
}

/** Roles (and profile creation through `POST /platform/<slug>/roles` with `quota`). */
export function roleRoutes(r: Router): void {
  r.get(
    '/platform/:platform/roles',
    async (c) => {
      const platform = await platformFromPath(c, 'user_role.view', { profile: true })
      const roles = await c.list(await roleCount(c.em, platform.id), (page) => rolePage(c.em, platform.id, page))
      return reply.xml(200, roleListXml(c.links, platform.slug, roles))
    },
    { permission: 'profile user_role.view on the platform' },
  )

  r.post(
    '/platform/:platform/roles',
    async (c) => {
      const form = await c.form()
      if ('quota' in form) return createProfileFromForm(c, form)
      const platform = await platformFromPath(c, 'user_role.create', { profile: true })
      const fields = readFields(c.fields(form, 'create'))
      const permissions = applyPermissions(ROLE_FLAGS, [], fields.sent)
      await requireGrantableRole(c.authz, c.principal, platform.id, permissions, [])
      const role = await createRole(c.em, platform.id, fields.name!, permissions)
      return reply.xml(201, roleInfoXml(c.links, role))
    },
    {
      permission:
        "profile user_role.create on the platform, and holding (through one's role flags on the platform) every flag granted; with quota it creates a profile: as POST /platform/<slug>/profiles",
    },
  )

  r.get('/role/:role', async (c) => reply.xml(200, roleInfoXml(c.links, await roleFromPath(c, 'user_role.view'))), {
    permission: "profile user_role.view on the role's platform",
  })

  r.put(
    '/role/:role',
    async (c) => {
      const role = await roleFromPath(c, 'user_role.edit')
      const fields = readFields(c.fields(await c.form(), 'update'))
      const permissions = applyPermissions(ROLE_FLAGS, role.permissions, fields.sent)
      await requireGrantableRole(c.authz, c.principal, role.platform.id, permissions, role.permissions)
      if (fields.name !== undefined) role.name = fields.name
      role.permissions = permissions
      await c.em.flush()
      return reply.xml(200, roleInfoXml(c.links, role))
    },
    {
      permission:
        "profile user_role.edit on the role's platform, and holding (through one's role flags on the platform) every flag added",
    },
  )

  r.delete(
    '/role/:role',
    async (c) => {
      await deleteRole(c.em, await roleFromPath(c, 'user_role.delete'))
      return reply.noContent()
    },
    { permission: "profile user_role.delete on the role's platform" },
  )
}
