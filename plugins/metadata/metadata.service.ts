import {
  type EntityManager,
  type Emit,
  freeSlug,
  invalid,
  notFound,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { lockPlatform } from '../platforms/index.js'
import { type MetadataDefinition, MetadataDefinitionEntity } from './metadata.entity.js'
import { type MetadataChanges, settleDefault } from './metadata.fields.js'
import type { MetadataDefinitionView } from './metadata.types.js'

/** A definition as the answers show it. */
export function definitionView(definition: MetadataDefinition): MetadataDefinitionView {
  return {
    id: definition.id,
    slug: definition.slug,
    name: definition.name,
    type: definition.type,
    fileTypes: definition.fileTypes,
    isProtected: definition.isProtected,
    defaultValue: definition.defaultValue,
    platformId: definition.platform.id,
    platformSlug: definition.platform.slug,
  }
}

// Names compare without case: `Genre` next to `genre` invites mistakes. Compared here rather
// than with SQL lower(), which folds only ASCII on SQLite; a platform has few definitions.
async function checkName(tx: EntityManager, platformId: number, name: string, except?: number): Promise<void> {
  const rows = await tx.execute<{ id: number; name: string }[]>(
    'select id, name from metadata_definitions where platform_id = ?',
    [platformId],
  )
  const lowered = name.toLowerCase()
  if (rows.some((row) => Number(row.id) !== except && row.name.toLowerCase() === lowered)) {
    throw invalid({ name: 'is already used on this platform' })
  }
}

/** Creates a definition on a platform (fields already checked); its slug is the first free one for the name. */
export function createDefinition(
  em: EntityManager,
  platformId: number,
  input: MetadataChanges,
): Promise<MetadataDefinitionView> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = await lockPlatform(tx, platformId)
      await checkName(tx, platformId, input.name!)
      const definition = tx.create(MetadataDefinitionEntity, {
        slug: await freeSlug(tx, MetadataDefinitionEntity, input.name!),
        name: input.name!,
        type: input.type!,
        fileTypes: input.fileTypes!,
        isProtected: input.isProtected ?? false,
        defaultValue: input.defaultValue ?? null,
        platform,
        createdAt: new Date(),
      })
      await tx.flush()
      return definitionView(definition)
    }),
  )
}

/**
 * Applies a partial update (fields already checked against the definition as it was read).
 * The type and default are checked again on the locked, fresh row, in case a concurrent
 * update changed one of them in between.
 */
export function updateDefinition(
  em: EntityManager,
  current: MetadataDefinitionView,
  changes: MetadataChanges,
): Promise<MetadataDefinitionView> {
  return transaction(em, async (tx) => {
    await lockPlatform(tx, current.platformId)
    const definition = await tx.findOne(MetadataDefinitionEntity, { id: current.id }, { populate: ['platform'] })
    if (!definition) throw notFound(`No metadata "${current.slug}".`)
    if (changes.name !== undefined) await checkName(tx, current.platformId, changes.name, definition.id)
    const settled = settleDefault(definition, changes.type, changes.defaultValue)
    if ('error' in settled) throw invalid({ [settled.field]: settled.error })
    if (changes.name !== undefined) definition.name = changes.name
    if (changes.type !== undefined) definition.type = changes.type
    if (changes.fileTypes !== undefined) definition.fileTypes = changes.fileTypes
    if (changes.isProtected !== undefined) definition.isProtected = changes.isProtected
    if (settled.value !== undefined) definition.defaultValue = settled.value
    await tx.flush()
    return definitionView(definition)
  })
}

/** Deletes a definition; `metadata.deleted` lets the file store drop its values in the same transaction. */
export async function deleteDefinition(
  emit: Emit,
  em: EntityManager,
  definition: MetadataDefinitionView,
): Promise<void> {
  await transaction(em, async (tx) => {
    await emit('metadata.deleted', { em: tx, definition })
    await tx.nativeDelete(MetadataDefinitionEntity, { id: definition.id })
  })
}
