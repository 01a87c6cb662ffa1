import { LockMode } from '@mikro-orm/core'
import {
  type EntityManager,
  type Emit,
  freeSlug,
  invalid,
  notFound,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { MediaEntity } from '../media/index.js'
import { StreamEntity } from './stream.entity.js'
import type { StreamInput } from './stream.fields.js'
import { STREAM_KIND } from './stream.lookup.js'

/**
 * Locks the row of a media for the rest of the transaction. Every change to the stream tree
 * of a media (create, move, delete) takes this lock first, so the checks made inside the
 * transaction (max_streams, the parent still there, no cycle) hold until it commits.
 * (SQLite has no row locks; its single writing connection runs transactions one at a time.)
 */
async function lockMedia(tx: EntityManager, mediaId: number) {
  const media = await tx.findOne(MediaEntity, { id: mediaId }, { lockMode: LockMode.PESSIMISTIC_WRITE })
  if (!media) throw notFound('No such media.')
  return media
}

/**
 * Creates a stream in a media (under `parentId` when given). The media row is locked first,
 * so concurrent creations cannot take the media past its `max_streams` (412, nothing stored).
 */
export function createStream(
  em: EntityManager,
  mediaId: number,
  input: Required<Pick<StreamInput, 'title' | 'visibility'>> & StreamInput,
  parentId: number | null,
): Promise<number> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const media = await lockMedia(tx, mediaId)
      // The parent was checked before the transaction: a concurrent deletion may have removed it since.
      if (parentId !== null && (await tx.count(StreamEntity, { id: parentId, media: mediaId })) === 0) {
        throw invalid({ parent_stream: 'was deleted meanwhile' })
      }
      if (media.maxStreams > 0 && (await tx.count(StreamEntity, { media: mediaId })) >= media.maxStreams) {
        throw invalid(
          { max_streams: `the media holds its maximum of ${media.maxStreams} streams` },
          `The media "${media.slug}" may hold at most ${media.maxStreams} streams: delete one, or raise its max_streams.`,
        )
      }
      const stream = tx.create(StreamEntity, {
        slug: await freeSlug(tx, StreamEntity, input.title),
        title: input.title,
        subtitle: input.subtitle ?? '',
        description: input.description ?? '',
        visibility: input.visibility,
        media: mediaId,
        parent: parentId,
        createdAt: new Date(),
      })
      await tx.flush()
      return stream.id
    }),
  )
}

/**
 * Applies a partial update; `parentId` undefined keeps the parent, null moves the stream to the
 * top. Moving below a stream is checked again under the media's lock: two concurrent moves
 * (A below B, B below A) each pass the route's check on committed data, and would together
 * make a cycle, detaching both streams from the media.
 */
export function updateStream(
  em: EntityManager,
  target: { id: number; mediaId: number },
  changes: StreamInput,
  parentId?: number | null,
) {
  const { id, mediaId } = target
  return transaction(em, async (tx) => {
    if (typeof parentId === 'number') {
      await lockMedia(tx, mediaId)
      if ((await tx.count(StreamEntity, { id: parentId, media: mediaId })) === 0) {
        throw invalid({ parent_stream: 'was deleted meanwhile' })
      }
      if ((await subtreeIn(tx, [id])).includes(parentId)) {
        throw invalid({ parent_stream: 'is below this stream: moving it there would make a cycle' })
      }
    }
    // Read after the lock, so a move committed meanwhile is seen.
    const stream = await tx.findOneOrFail(StreamEntity, { id })
    if (changes.title !== undefined) stream.title = changes.title
    if (changes.subtitle !== undefined) stream.subtitle = changes.subtitle ?? ''
    if (changes.description !== undefined) stream.description = changes.description ?? ''
    if (changes.visibility !== undefined) stream.visibility = changes.visibility
    if (parentId !== undefined) stream.parent = parentId === null ? null : tx.getReference(StreamEntity, parentId)
    await tx.flush()
  })
}

/**
 * Deletes streams and everything below them (sub-streams, resources, the accesses on all of
 * them) inside `tx`. `ids` need not include the sub-streams: they are found here.
 */
export async function deleteStreamsIn(emit: Emit, tx: EntityManager, ids: number[]): Promise<void> {
  const all = await subtreeIn(tx, ids)
  if (all.length === 0) return
  await emit('stream.deleting', { em: tx, ids: all })
  await emit('authz.objects-deleted', { em: tx, kind: STREAM_KIND, ids: all })
  // Children first would be needed without the cascading key; one statement deletes the lot.
  await tx.nativeDelete(StreamEntity, { id: { $in: all } })
}

/** The subtree of `ids`, read inside the transaction (so it sees its own writes). */
async function subtreeIn(tx: EntityManager, ids: number[]): Promise<number[]> {
  const found = new Set(ids)
  let frontier = ids
  while (frontier.length) {
    const children = await tx.find(StreamEntity, { parent: { $in: frontier } }, { fields: ['id'] })
    frontier = children.map((child) => child.id).filter((id) => !found.has(id))
    for (const id of frontier) found.add(id)
  }
  return [...found]
}

/**
 * Deletes a stream and everything below it, in one transaction, under the media's lock: a
 * sub-stream created or moved in meanwhile is deleted with the others (and its accesses).
 */
export function deleteStream(emit: Emit, em: EntityManager, target: { id: number; mediaId: number }): Promise<void> {
  return transaction(em, async (tx) => {
    await lockMedia(tx, target.mediaId)
    await deleteStreamsIn(emit, tx, [target.id])
  })
}
