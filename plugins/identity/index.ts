import { definePlugin, invalid } from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { credentialsPort } from './credentials.service.js'
import init from './migrations/20261121-identity-init.js'
import { ProfileEntity } from './profile.entity.js'
import { UserEntity } from './user.entity.js'
import { instanceAdmins, seedPlatformProfiles } from './user.service.js'

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
    ctx.provide('credentials', credentialsPort(ctx.services.reader))
    ctx.on('platform.created', ({ em, platform }) => seedPlatformProfiles(em, platform))
    ctx.on('platform.describe', async ({ reader, platform, stats }) => {
      const row = await reader.one<{ n: number | string }>('select count(*) as n from users where platform_id = ?', [
        platform.id,
      ])
      stats.createdUsers = Number(row?.n ?? 0)
    })
    ctx.on('platform.deleting', async ({ em, platform }) => {
      const admins = await instanceAdmins(em)
      if (admins.length > 0 && (await instanceAdmins(em, platform)).length === 0) {
        throw invalid(
          { platform: 'holds the last installation administrator' },
          'Deleting this platform would remove every installation administrator: create one on another platform first (mediactl user create --admin).',
        )
      }
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
