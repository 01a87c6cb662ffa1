import type { FieldReader, Reader } from '../../src/kernel/index.js'
import { playerBehaviorQueries, playerThemeQueries } from '../players/index.js'
import { PLAYER_FIELDS, type PlayerField, type WidgetInput } from './widget.fields.js'

/** The ids a widget's players take: null to clear, undefined unchanged (not sent). */
export type PlayerIds = Partial<Record<PlayerField, number | null>>

/** The reads of the theme or behavior a field names. */
export const PLAYER_QUERIES = { player_theme: playerThemeQueries, player_behavior: playerBehaviorQueries }

/**
 * The ids of the theme and behavior named by slug in `input`, each of which must belong to
 * `platformId` (the resource's platform). One unknown, or of another platform, fails its field
 * with the same message, so a request never learns what another tenant has.
 */
export async function resolvePlayers(
  reader: Reader,
  v: FieldReader,
  platformId: number,
  input: WidgetInput,
): Promise<PlayerIds> {
  const ids: PlayerIds = {}
  for (const { field, label } of PLAYER_FIELDS) {
    const slug = input.players[field]
    if (slug === undefined) continue
    if (slug === null) {
      ids[field] = null
      continue
    }
    const found = await PLAYER_QUERIES[field].bySlug(reader, slug)
    if (found && found.platformId === platformId) ids[field] = found.id
    else v.fail(field, `no ${label} "${slug}" on the platform of the resource`)
  }
  return ids
}
