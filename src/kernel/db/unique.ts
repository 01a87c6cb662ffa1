import { type EntityName, UniqueConstraintViolationException } from '@mikro-orm/core'
import { uniqueSlug } from '../../shared/slug.js'
import type { EntityManager } from './orm.js'

/** How many times a creation that lost a race for a unique value is retried. */
const ATTEMPTS = 10

/**
 * Runs `create` (typically a transaction that picks a free slug and inserts) again when a
 * concurrent request took the same unique value first, so concurrent creations of the
 * same name get `-2`, `-3`, ... instead of an error.
 */
export async function retryOnConflict<T>(create: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create()
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= attempts) throw error
    }
  }
}

/** The first free slug for `name` among the `slug` column of `entity` (API-DECISIONS: Identity). */
export function freeSlug<T extends { slug: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  name: string,
): Promise<string> {
  return uniqueSlug(name, async (slug) => (await em.count(entity, { slug } as never)) > 0)
}
