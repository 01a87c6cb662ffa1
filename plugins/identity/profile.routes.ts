import {
  type FieldReader,
  type Form,
  type HttpContext,
  type Reply,
  type Router,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { type SentFlags, applyPermissions, readPermissions } from './permission-form.js'
import { PROFILE_FLAGS } from './profile-flags.js'
import { type Profile, ProfileEntity } from './profile.entity.js'
import {
  createProfile,
  deleteProfile,
  profileCount,
  profilePage,
  requireAnotherInstanceAdmin,
  requireChangeable,
  requireGrantableProfile,
} from './profile.service.js'
import { profileInfoXml, profileListXml } from './profile.xml.js'

/**
 * The profile named by the `:profile` path parameter (platform loaded), once the caller's
 * profile holds `flag` (`user_profile.view`, `user_profile.edit`, ...) on its platform.
 * Profiles are visible to those who see the platform and hold `user_profile.view`: 404
 * otherwise, 403 when they see it but may not do that.
 */
export async function profileFromPath(c: HttpContext, flag: string): Promise<Profile> {
  const slug = c.param('profile')
  const profile = await c.em.findOne(ProfileEntity, { slug }, { populate: ['platform'] })
  if (!profile) throw notFound(`No profile "${slug}".`)
  await c.authz.requireProfile(c.principal, flag, profile.platform.id, {
    name: slug,
    kind: 'profile',
    see: 'user_profile.view',
  })
  return profile
}

interface ProfileFields {
  name?: string
  quota?: number
  sent: SentFlags
}

function readFields(v: FieldReader): ProfileFields {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  const quota = v.integer('quota', { required: true }) ?? undefined
  const sent = readPermissions(v, PROFILE_FLAGS)
  v.done()
  return { name, quota, sent }
}

/**
 * Profile creation from an already read form: `POST /platform/<slug>/profiles`, and
 * `POST /platform/<slug>/roles` when it carries `quota` (API-DECISIONS: Authorization).
 */
export async function createProfileFromForm(c: HttpContext, form: Form): Promise<Reply> {
  const platform = await platformFromPath(c, 'user_profile.create', { profile: true })
  const fields = readFields(c.fields(form, 'create'))
  const permissions = applyPermissions(PROFILE_FLAGS, [], fields.sent)
  requireGrantableProfile(c.authz, c.principal, permissions, [])
  const profile = await createProfile(c.em, platform.id, { name: fields.name!, quota: fields.quota!, permissions })
  return reply.xml(201, profileInfoXml(c.links, profile))
}

/** Profiles: list, create, info, partial update and delete. */
export function profileRoutes(r: Router): void {
  r.get(
    '/platform/:platform/profiles',
    async (c) => {
      const platform = await platformFromPath(c, 'user_profile.view', { profile: true })
      const profiles = await c.list(await profileCount(c.em, platform.id), (page) =>
        profilePage(c.em, platform.id, page),
      )
      return reply.xml(200, profileListXml(c.links, platform.slug, profiles))
    },
    { permission: 'profile user_profile.view on the platform' },
  )

  r.post('/platform/:platform/profiles', async (c) => createProfileFromForm(c, await c.form()), {
    permission:
      'profile user_profile.create on the platform; granting a flag needs holding it (instance.view: installation administrator)',
  })

  r.get(
    '/profile/:profile',
    async (c) => reply.xml(200, profileInfoXml(c.links, await profileFromPath(c, 'user_profile.view'))),
    { permission: "profile user_profile.view on the profile's platform" },
  )

  r.put(
    '/profile/:profile',
    async (c) => {
      const profile = await profileFromPath(c, 'user_profile.edit')
      requireChangeable(c.principal, profile)
      const fields = readFields(c.fields(await c.form(), 'update'))
      const permissions = applyPermissions(PROFILE_FLAGS, profile.permissions, fields.sent)
      requireGrantableProfile(c.authz, c.principal, permissions, profile.permissions)
      await requireAnotherInstanceAdmin(c.em, profile, permissions)
      if (fields.name !== undefined) profile.name = fields.name
      if (fields.quota !== undefined) profile.quota = fields.quota
      profile.permissions = permissions
      await c.em.flush()
      return reply.xml(200, profileInfoXml(c.links, profile))
    },
    {
      permission:
        "profile user_profile.edit on the profile's platform; granting a flag needs holding it; a profile holding instance.view: installation administrator",
    },
  )

  r.delete(
    '/profile/:profile',
    async (c) => {
      const profile = await profileFromPath(c, 'user_profile.delete')
      requireChangeable(c.principal, profile)
      await deleteProfile(c.em, profile)
      return reply.noContent()
    },
    {
      permission:
        "profile user_profile.delete on the profile's platform; a profile holding instance.view: installation administrator",
    },
  )
}
