import { LockMode } from '@mikro-orm/core'
import {
  type EntityManager,
  type Emit,
  freeSlug,
  invalid,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { type Media, MediaEntity } from './media.entity.js'
import type { MediaInput } from './media.fields.js'
import { MEDIA_KIND } from './media.lookup.js'

/** 412 when another media already serves the domain (host-based routing needs one media per host). */
async function requireFreeDomain(tx: EntityManager, domain: string, except?: number): Promise<void> {
  const taken = await tx.findOne(MediaEntity, { domain }, { fields: ['id'] })
  if (taken && taken.id !== except) throw invalid({ domain_name: 'is already the domain of another media' })
}

/** Creates a media of a platform, and lets plugins seed what a new media holds (channels). */
export function createMedia(
  emit: Emit,
  em: EntityManager,
  platformId: number,
  input: Required<Pick<MediaInput, 'name' | 'domain' | 'contactEmail'>> & MediaInput,
): Promise<Media> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      await requireFreeDomain(tx, input.domain)
      const media = tx.create(MediaEntity, {
        slug: await freeSlug(tx, MediaEntity, input.name),
        name: input.name,
        domain: input.domain,
        description: input.description ?? '',
        contactEmail: input.contactEmail,
        maxStreams: input.maxStreams ?? 0,
        platform: platformId,
        createdAt: new Date(),
      })
      await tx.flush()
      await emit('media.created', { em: tx, media })
      await tx.flush()
      return media
    }),
  )
}

/**
 * Applies a partial update (API-DECISIONS: a field sent empty is cleared). A concurrent
 * request that took the same domain first makes the unique key fail: the retry then finds
 * the domain taken and answers the field's 412.
 */
export function updateMedia(em: EntityManager, id: number, changes: MediaInput): Promise<Media> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const media = await tx.findOneOrFail(MediaEntity, { id })
      if (changes.domain !== undefined && changes.domain !== media.domain) {
        await requireFreeDomain(tx, changes.domain, id)
        media.domain = changes.domain
      }
      if (changes.name !== undefined) media.name = changes.name
      if (changes.description !== undefined) media.description = changes.description ?? ''
      if (changes.contactEmail !== undefined) media.contactEmail = changes.contactEmail
      if (changes.maxStreams !== undefined) media.maxStreams = changes.maxStreams ?? 0
      await tx.flush()
      return media
    }),
  )
}

/**
 * Deletes media and everything they hold (streams, sub-streams, resources, channels, the
 * accesses on all of them) inside `tx`.
 */
export async function deleteMediaIn(emit: Emit, tx: EntityManager, ids: number[]): Promise<void> {
  if (ids.length === 0) return
  // Stream changes lock their media row first (streams plugin); taking the same locks first, in
  // id order, makes a concurrent stream creation wait or finish instead of deadlocking with the
  // deletion of the rows it points at.
  await tx.find(MediaEntity, { id: { $in: ids } }, { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE })
  await emit('media.deleting', { em: tx, ids })
  await emit('authz.objects-deleted', { em: tx, kind: MEDIA_KIND, ids })
  await tx.nativeDelete(MediaEntity, { id: { $in: ids } })
}

/** Deletes one media and everything it holds, in one transaction. */
export function deleteMedia(emit: Emit, em: EntityManager, id: number): Promise<void> {
  return transaction(em, (tx) => deleteMediaIn(emit, tx, [id]))
}
