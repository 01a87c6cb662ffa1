import { definePlugin } from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { credentials } from './credentials.service.js'
import init from './migrations/20261121-identity-init.js'
import { ProfileEntity } from './profile.entity.js'
import { UserEntity } from './user.entity.js'
import { seedPlatformProfiles } from './user.service.js'

export { type Profile, ProfileEntity } from './profile.entity.js'
export { type User, UserEntity } from './user.entity.js'
export { ALL_PROFILE_FLAGS, DEFAULT_PROFILES, PROFILE_FLAGS } from './profile-flags.js'
export {
  API_KEY_LENGTH,
  UserInputError,
  createUser,
  digestHa1,
  rotateApiKey,
  seedPlatformProfiles,
} from './user.service.js'

/** Identity: users and profiles, and the credentials behind Digest authentication. */
export default definePlugin({
  name: 'identity',
  dependsOn: ['platforms'],
  entities: [ProfileEntity, UserEntity],
  migrations: [init],
  register(ctx) {
    ctx.provide('credentials', credentials)
    ctx.on('platform.created', ({ em, platform }) => seedPlatformProfiles(em, platform))
    ctx.on('platform.describe', async ({ em, platform, stats }) => {
      stats.createdUsers = await em.count(UserEntity, { platform })
    })
    ctx.on('platform.deleting', async ({ em, platform }) => {
      await em.nativeDelete(UserEntity, { platform })
      await em.nativeDelete(ProfileEntity, { platform })
    })
    ctx.seed(async (em) => {
      for (const platform of await em.find(PlatformEntity, {}, { orderBy: { id: 'asc' } })) {
        await seedPlatformProfiles(em, platform)
      }
    })
  },
})
