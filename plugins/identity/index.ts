import { type DigestCredentials, definePlugin, invalid } from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { accessGrantsPort } from './access-grants.service.js'
import { AccessEntity } from './access.entity.js'
import { accessRoutes } from './access.routes.js'
import { authenticationRoutes } from './authentication.routes.js'
import { credentialsPort } from './credentials.service.js'
import { GroupMemberEntity } from './group-member.entity.js'
import { GroupEntity } from './group.entity.js'
import { groupRoutes } from './group.routes.js'
import type { IdentityDeps } from './identity.deps.js'
import access from './migrations/20261121-identity-access.js'
import init from './migrations/20261121-identity-init.js'
import watch from './migrations/20270105-identity-watch.js'
import { ProfileEntity } from './profile.entity.js'
import { profileRoutes } from './profile.routes.js'
import { RoleEntity } from './role.entity.js'
import { roleRoutes } from './role.routes.js'
import { seedPlatform } from './seeds.service.js'
import { UserEntity } from './user.entity.js'
import { userRoutes } from './user.routes.js'
import { userQueries } from './user.queries.js'
import { instanceAdmins } from './user.service.js'
import { userCommands } from './user.commands.js'

export { type Access, AccessEntity } from './access.entity.js'
export { objectAccessesHandler, objectAccessesPermission } from './access.routes.js'
export { type Group, GroupEntity } from './group.entity.js'
export { type GroupMember, GroupMemberEntity } from './group-member.entity.js'
export { type Profile, ProfileEntity } from './profile.entity.js'
export { type Role, RoleEntity } from './role.entity.js'
export { type User, UserEntity } from './user.entity.js'
export { ALL_PROFILE_FLAGS, DEFAULT_PROFILES, PROFILE_FLAGS } from './profile-flags.js'
export { ALL_ROLE_FLAGS, DEFAULT_ROLES, ROLE_FLAGS } from './role-flags.js'
export { seedPlatform } from './seeds.service.js'
export { type CreatedUser, fieldErrorsLine, userCommands } from './user.commands.js'
export { API_KEY_LENGTH, createUser, digestHa1, rotateApiKey } from './user.service.js'
export { type InstallationAdmin, ensureInstallationAdmin } from './installation-admin.js'

/**
 * Identity and access control: users, groups, roles, profiles, accesses; the credentials
 * behind Digest authentication and the role flags behind the authorization service.
 */
export default definePlugin({
  name: 'identity',
  dependsOn: ['platforms'],
  provides: ['credentials', 'accessGrants'],
  entities: [ProfileEntity, UserEntity, GroupEntity, GroupMemberEntity, RoleEntity, AccessEntity],
  migrations: [init, access, watch],
  commands: userCommands,
  register(ctx) {
    // Read by nearly every request, changed rarely: kept per process until their tables change.
    const credentials = ctx.cache<DigestCredentials | null>({ tables: ['users', 'profiles', 'platforms'] })
    const grants = ctx.cache<ReadonlySet<string> | number[]>({
      tables: ['accesses', 'roles', 'user_groups', 'group_members'],
    })
    ctx.provide('credentials', credentialsPort(ctx.reader, credentials))
    ctx.provide('accessGrants', accessGrantsPort(ctx.reader, grants))
    const deps: IdentityDeps = {
      emit: ctx.emit,
      realm: ctx.kernelConfig.auth.realm,
      dataDir: ctx.kernelConfig.data_dir,
    }
    ctx.routes((r) => {
      userRoutes(r, deps)
      authenticationRoutes(r, deps)
      groupRoutes(r)
      roleRoutes(r)
      profileRoutes(r)
      accessRoutes(r)
    })
    ctx.on('platform.created', ({ em, platform }) => seedPlatform(em, platform))
    // Platform info's count, kept per process until a user is created, changed or deleted.
    const userCounts = ctx.cache<number>({ tables: ['users'] })
    ctx.on('platform.describe', async ({ reader, platform, stats }) => {
      stats.createdUsers = await userCounts.get(String(platform.id), () => userQueries.count(reader, platform.id))
    })
    ctx.on('platform.deleting', async ({ em, platform }) => {
      const admins = await instanceAdmins(em)
      if (admins.length > 0 && (await instanceAdmins(em, platform)).length === 0) {
        throw invalid(
          { platform: 'holds the last installation administrator' },
          'Deleting this platform would remove every installation administrator: create one on another platform first (mediactl user create --admin).',
        )
      }
      const users = await em.find(UserEntity, { platform }, { fields: ['id'] })
      await ctx.emit('platform.users-deleting', { em, userIds: users.map((user) => user.id) })
      // In dependency order: accesses point at roles, users at profiles.
      await em.nativeDelete(AccessEntity, { platform })
      await em.nativeDelete(GroupEntity, { platform })
      await em.nativeDelete(UserEntity, { platform })
      await em.nativeDelete(RoleEntity, { platform })
      await em.nativeDelete(ProfileEntity, { platform })
    })
    ctx.on('authz.objects-deleted', async ({ em, kind, ids }) => {
      await em.nativeDelete(AccessEntity, { objectKind: kind, objectId: { $in: ids } })
    })
    ctx.seed(async (em) => {
      for (const platform of await em.find(PlatformEntity, {}, { orderBy: { id: 'asc' } })) {
        await seedPlatform(em, platform)
      }
    })
  },
})
