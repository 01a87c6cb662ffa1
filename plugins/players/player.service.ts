import {
  type EntityManager,
  type Emit,
  freeSlug,
  notFound,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import type { PlayerChanges } from './player.fields.js'
import type { PlayerFamily } from './players.types.js'

// The entity is generic over the settings S here, which MikroORM's typed data and filters cannot
// follow: they are cast (`as never`); each family's settings are checked where they are read.

/** Creates a theme or behavior on a platform (fields already checked): unsent settings take the family's defaults. */
export function createPlayer<S extends object>(
  em: EntityManager,
  family: PlayerFamily<S>,
  platformId: number,
  input: PlayerChanges<S> & { name: string },
): Promise<number> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const record = tx.create(family.entity, {
        ...family.defaults,
        ...input.settings,
        slug: await freeSlug(tx, family.entity, input.name),
        name: input.name,
        platform: platformId,
        createdAt: new Date(),
      } as never)
      await tx.flush()
      return record.id
    }),
  )
}

/** Applies a partial update (fields already checked): only what was sent changes; the slug never does. */
export function updatePlayer<S extends object>(
  em: EntityManager,
  family: PlayerFamily<S>,
  id: number,
  changes: PlayerChanges<S>,
): Promise<void> {
  return transaction(em, async (tx) => {
    const record = await tx.findOne(family.entity, { id } as never)
    if (!record) throw notFound(`No such ${family.label}.`)
    if (changes.name !== undefined) record.name = changes.name
    Object.assign(record, changes.settings)
    await tx.flush()
  })
}

/**
 * Deletes themes or behaviors inside `tx`, after announcing it (`player_theme.deleting`,
 * `player_behavior.deleting`) so a listener may act, or refuse, in the same transaction.
 */
export async function deletePlayersIn<S extends object>(
  emit: Emit,
  tx: EntityManager,
  family: PlayerFamily<S>,
  ids: number[],
): Promise<void> {
  if (ids.length === 0) return
  await emit(`${family.kind}.deleting`, { em: tx, ids })
  await tx.nativeDelete(family.entity, { id: { $in: ids } } as never)
}

/** Deletes one theme or behavior, in one transaction. */
export function deletePlayer<S extends object>(
  emit: Emit,
  em: EntityManager,
  family: PlayerFamily<S>,
  id: number,
): Promise<void> {
  return transaction(em, (tx) => deletePlayersIn(emit, tx, family, [id]))
}

/** Deletes every theme or behavior of a platform inside `tx` (the platform is being deleted). */
export async function deletePlayersOfPlatform<S extends object>(
  emit: Emit,
  tx: EntityManager,
  family: PlayerFamily<S>,
  platformId: number,
): Promise<void> {
  const records = await tx.find(family.entity, { platform: platformId } as never, { fields: ['id'] as never })
  await deletePlayersIn(
    emit,
    tx,
    family,
    records.map((record) => record.id),
  )
}
