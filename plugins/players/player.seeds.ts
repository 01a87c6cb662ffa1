import { type EntityManager, freeSlug } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import { BEHAVIORS } from './player-behavior.family.js'
import { THEMES } from './player-theme.family.js'
import type { PlayerFamily } from './players.types.js'

/**
 * Gives a platform a family's defaults when it has none of that family: defaults that were
 * renamed, changed or deleted are the operator's choice and stay as they are (idempotent, as
 * the default profiles and roles). Slugs are prefixed with the platform's, like theirs
 * (`default-light`), so each platform's defaults read alike.
 */
async function seedFamily<S extends object>(em: EntityManager, family: PlayerFamily<S>, platform: Platform) {
  if ((await em.count(family.entity, { platform } as never)) > 0) return
  for (const seed of family.seeds) {
    em.create(family.entity, {
      ...seed.settings,
      slug: await freeSlug(em, family.entity, `${platform.slug}-${seed.name}`),
      name: seed.name,
      platform,
      createdAt: new Date(),
    } as never)
    await em.flush()
  }
}

/** Gives a platform its default themes (Light, Dark) and behaviors (Default, Autoplay muted, Loop). */
export async function seedPlayers(em: EntityManager, platform: Platform): Promise<void> {
  await seedFamily(em, THEMES, platform)
  await seedFamily(em, BEHAVIORS, platform)
}
