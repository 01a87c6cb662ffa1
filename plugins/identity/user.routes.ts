import { type FieldReader, type HttpContext, invalid, reply, requireFlag, type Router } from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { PRIVILEGED_FIELDS, readUserFields } from './user.fields.js'
import { currentProfile, requireHeld, visibleUser } from './identity.lookup.js'
import { type ProfileGrant, userQueries } from './user.queries.js'
import { UserEntity } from './user.entity.js'
import { createUser, deleteUser, rotateApiKey, updateUser, userView } from './user.service.js'
import { apiKeyXml, userInfoXml, userListXml } from './user.xml.js'
import type { IdentityDeps } from './identity.deps.js'

/** The `profile` field resolved on the user's platform (412 when unknown or of another platform). */
async function profileField(
  c: HttpContext,
  v: FieldReader,
  slug: string | undefined,
  platformId: number,
): Promise<ProfileGrant | undefined> {
  if (slug === undefined) return undefined
  const profile = await userQueries.profile(c.reader, slug)
  // Another platform's profile answers like an unknown one: its existence is not the caller's business.
  if (profile?.platformId === platformId) return profile
  v.fail('profile', `no profile "${slug}" on this platform`)
  return undefined
}

/**
 * Users: `GET/POST /platform/<slug>/users`, `GET/PUT/DELETE /user/<username>`. The password
 * check (`/user/<username>/authenticate`) is in authentication.routes.ts.
 */
export function userRoutes(r: Router, deps: IdentityDeps): void {
  const { emit, realm } = deps
  r.get(
    '/platform/:platform/users',
    async (c) => {
      const platform = await platformFromPath(c, 'user.view', { profile: true })
      const reader = c.reader
      const items = await c.list(await userQueries.count(reader, platform.id), (page) =>
        userQueries.page(reader, platform.id, page.offset, page.limit),
      )
      return reply.xml(200, userListXml(c.links, platform.slug, items))
    },
    { permission: 'profile user.view on the platform' },
  )

  r.post(
    '/platform/:platform/users',
    async (c) => {
      const platform = await platformFromPath(c, 'user.create', { profile: true })
      const v = c.fields(await c.form(), 'create')
      const fields = readUserFields(v)
      if (fields.platform !== undefined && fields.platform !== platform.slug) {
        v.fail('platform', 'must be the platform of the address')
      }
      const profile = await profileField(c, v, fields.profile, platform.id)
      v.done()
      requireHeld(c, profile!.permissions, `The profile "${profile!.slug}"`)
      const { user } = await createUser(
        c.em,
        {
          ...fields,
          username: fields.username!,
          email: fields.email!,
          platform,
          profile,
          realm: realm,
        },
        emit,
      )
      return reply.xml(201, userInfoXml(c.links, userView(user)))
    },
    {
      permission:
        'profile user.create on the platform; the profile given may grant only flags the caller holds; within max_users',
    },
  )

  r.get(
    '/user/:username',
    async (c) => reply.xml(200, userInfoXml(c.links, await visibleUser(c, 'user.view', { self: true }))),
    {
      permission: "the user themselves, or profile user.view on the user's platform",
    },
  )

  r.put(
    '/user/:username',
    async (c) => {
      const target = await visibleUser(c, 'user.edit', { self: true })
      const v = c.fields(await c.form(), 'update')
      const fields = readUserFields(v)
      if (target.id === c.principal.id) {
        // Their own names, e-mail, password and contact details: always; who they are and what they may do: user.edit.
        if (PRIVILEGED_FIELDS.some((field) => v.has(field))) requireFlag(c.principal, 'user.edit')
      } else {
        requireHeld(c, (await currentProfile(c, target)).permissions, `The profile of "${target.username}"`)
      }
      if (fields.platform !== undefined && fields.platform !== target.platformSlug) {
        v.fail('platform', 'cannot change: users stay on their platform')
      }
      const profile = await profileField(c, v, fields.profile, target.platformId)
      v.done()
      if (profile) requireHeld(c, profile.permissions, `The profile "${profile.slug}"`)
      const user = await updateUser(emit, c.em, target.id, { ...fields, profile })
      return reply.xml(200, userInfoXml(c.links, userView(user)))
    },
    {
      permission:
        "oneself for personal fields (names, e-mail, password, contact details, country, language); otherwise profile user.edit on the user's platform; username, profile, is_active: user.edit; the user's profile and the one given may grant only flags the caller holds",
    },
  )

  // An extension of the contract (docs/decisions/0258): the console's "new API key", and operators' scripts.
  r.post(
    '/user/:username/api_key',
    async (c) => {
      const target = await visibleUser(c, 'user.edit', { self: true })
      if (target.id !== c.principal.id) {
        requireHeld(c, (await currentProfile(c, target)).permissions, `The profile of "${target.username}"`)
      }
      const user = await c.em.findOneOrFail(UserEntity, { id: target.id })
      const apiKey = await rotateApiKey(c.em, user, realm)
      return reply.xml(201, apiKeyXml(c.links, user.username, apiKey), { 'Cache-Control': 'no-store' })
    },
    {
      permission:
        "oneself; otherwise profile user.edit on the user's platform, on a user whose profile grants only flags the caller holds",
    },
  )

  r.delete(
    '/user/:username',
    async (c) => {
      const target = await visibleUser(c, 'user.delete', { self: true })
      if (target.id === c.principal.id) {
        throw invalid({ username: 'is yours: nobody may delete themselves' }, 'You cannot delete yourself.')
      }
      requireHeld(c, (await currentProfile(c, target)).permissions, `The profile of "${target.username}"`)
      await deleteUser(emit, c.em, target.id)
      return reply.noContent()
    },
    {
      permission:
        "profile user.delete on the user's platform, on another user whose profile grants only flags the caller holds (nobody deletes themselves)",
    },
  )
}
