import { ForeignKeyConstraintViolationException } from '@mikro-orm/core'
import {
  type EntityManager,
  type Reader,
  freeSlug,
  invalid,
  notFound,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { PlayerBehaviorEntity, PlayerThemeEntity } from '../players/index.js'
import { type ResourceView, resourceQueries } from '../resources/index.js'
import { WidgetEntity } from './widget.entity.js'
import { PLAYER_FIELDS } from './widget.fields.js'
import { PLAYER_QUERIES, type PlayerIds } from './widget.players.js'
import type { WidgetSize } from './widget.size.js'

/** What a create or an update stores (fields already checked): undefined leaves a value unchanged. */
export interface WidgetChanges {
  name?: string
  size?: WidgetSize
  players: PlayerIds
}

/**
 * A write that referred to a row deleted meanwhile (the resource, or the theme or behavior
 * checked a moment before) fails on its foreign key: answer as if the deletion had come first.
 * Anything else that `error` might mean is thrown as it is.
 */
async function explainMissingReference(
  reader: Reader,
  resource: ResourceView,
  players: PlayerIds,
  error: unknown,
): Promise<never> {
  if (!(await resourceQueries.byId(reader, resource.id))) throw notFound(`No resource "${resource.slug}".`)
  const errors: Record<string, string> = {}
  for (const { field, label } of PLAYER_FIELDS) {
    const id = players[field]
    if (id != null && !(await PLAYER_QUERIES[field].byId(reader, id))) {
      errors[field] = `the ${label} was deleted meanwhile`
    }
  }
  throw Object.keys(errors).length ? invalid(errors) : error
}

async function guarded<T>(
  reader: Reader,
  resource: ResourceView,
  players: PlayerIds,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) {
      return explainMissingReference(reader, resource, players, error)
    }
    throw error
  }
}

/** Creates a widget of a resource; its slug is the first free one for the name. Returns its id. */
export function createWidget(
  reader: Reader,
  em: EntityManager,
  resource: ResourceView,
  input: Required<Pick<WidgetChanges, 'name' | 'size'>> & WidgetChanges,
): Promise<number> {
  return guarded(reader, resource, input.players, () =>
    retryOnConflict(() =>
      transaction(em, async (tx) => {
        const widget = tx.create(WidgetEntity, {
          slug: await freeSlug(tx, WidgetEntity, input.name),
          name: input.name,
          width: input.size.width,
          height: input.size.height,
          resource: resource.id,
          playerTheme: input.players.player_theme ?? null,
          playerBehavior: input.players.player_behavior ?? null,
          createdAt: new Date(),
        })
        await tx.flush()
        return widget.id
      }),
    ),
  )
}

/** Applies a partial update: only what was sent changes; the slug never does. */
export function updateWidget(
  reader: Reader,
  em: EntityManager,
  resource: ResourceView,
  id: number,
  changes: WidgetChanges,
): Promise<void> {
  return guarded(reader, resource, changes.players, () =>
    transaction(em, async (tx) => {
      const widget = await tx.findOne(WidgetEntity, { id })
      if (!widget) throw notFound('No such widget.')
      if (changes.name !== undefined) widget.name = changes.name
      if (changes.size !== undefined) Object.assign(widget, changes.size)
      const { player_theme: theme, player_behavior: behavior } = changes.players
      if (theme !== undefined) widget.playerTheme = theme === null ? null : tx.getReference(PlayerThemeEntity, theme)
      if (behavior !== undefined) {
        widget.playerBehavior = behavior === null ? null : tx.getReference(PlayerBehaviorEntity, behavior)
      }
      await tx.flush()
    }),
  )
}

/** Deletes a widget. */
export async function deleteWidget(em: EntityManager, id: number): Promise<void> {
  await em.nativeDelete(WidgetEntity, { id })
}
