import {
  type EntityManager,
  freeSlug,
  invalid,
  notFound,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { SLUG_MAX_LENGTH, slugify } from '../../src/shared/slug.js'
import type { Media } from '../media/index.js'
import { type Channel, ChannelEntity } from './channel.entity.js'
import { type ChannelInput, checkTheming } from './channel.fields.js'
import type { ChannelTypes } from './channel-type.registry.js'

/** The channels every new media gets: its web site and its widgets, online. */
export const DEFAULT_CHANNELS = [
  { name: 'Web', type: 'web' },
  { name: 'Widget', type: 'widget' },
] as const

/** A new channel: name and type checked and required. */
export type NewChannel = Required<Pick<ChannelInput, 'name' | 'type'>> & ChannelInput

function insert(tx: EntityManager, mediaId: number, slug: string, input: NewChannel): Channel {
  return tx.create(ChannelEntity, {
    slug,
    name: input.name,
    type: input.type,
    isOnline: input.isOnline ?? true,
    theme: input.theme ?? null,
    skin: input.skin ?? null,
    media: mediaId,
    createdAt: new Date(),
  })
}

/** Creates a channel of a media (fields and theming already checked); its slug is the first free one for the name. */
export function createChannel(em: EntityManager, mediaId: number, input: NewChannel): Promise<Channel> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const channel = insert(tx, mediaId, await freeSlug(tx, ChannelEntity, input.name), input)
      await tx.flush()
      return channel
    }),
  )
}

/**
 * Seeds the default channels of a new media inside its creating transaction. Their slugs are
 * made from the media's slug and the name (`campus-tv-web`): every media has a "Web" channel,
 * and slugs from the name alone would cost the n-th media n lookups (`web-<n>`).
 */
export async function seedChannels(tx: EntityManager, media: Media): Promise<void> {
  for (const channel of DEFAULT_CHANNELS) {
    // The media's slug is shortened so the channel's name always shows (`<media>-web`).
    const name = slugify(channel.name)
    const base = `${media.slug.slice(0, SLUG_MAX_LENGTH - name.length - 1)}-${name}`
    insert(tx, media.id, await freeSlug(tx, ChannelEntity, base), channel)
    // Flushed one by one, so the next one's free slug is computed against this one too.
    await tx.flush()
  }
}

/**
 * Applies a partial update (fields checked against the channel as read), checking theming
 * again on the fresh row in case a concurrent update changed the type or theme in between.
 */
export function updateChannel(
  em: EntityManager,
  id: number,
  changes: ChannelInput,
  types: ChannelTypes,
): Promise<void> {
  return transaction(em, async (tx) => {
    const channel = await tx.findOne(ChannelEntity, { id })
    if (!channel) throw notFound('This channel was just deleted.')
    const errors = checkTheming(channel, changes, types)
    if (Object.keys(errors).length) throw invalid(errors)
    if (changes.name !== undefined) channel.name = changes.name
    if (changes.type !== undefined) channel.type = changes.type
    if (changes.isOnline !== undefined) channel.isOnline = changes.isOnline
    if (changes.theme !== undefined) channel.theme = changes.theme
    if (changes.skin !== undefined) channel.skin = changes.skin
    await tx.flush()
  })
}

/** Deletes one channel. */
export async function deleteChannel(em: EntityManager, id: number): Promise<void> {
  await em.nativeDelete(ChannelEntity, { id })
}

/** Deletes the channels of media about to be deleted (inside the deleting transaction). */
export async function deleteChannelsOf(tx: EntityManager, mediaIds: number[]): Promise<void> {
  if (mediaIds.length) await tx.nativeDelete(ChannelEntity, { media: { $in: mediaIds } })
}
