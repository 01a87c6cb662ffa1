import { type HttpContext, notFound } from '../../src/kernel/index.js'
import type { PlatformView } from '../platforms/index.js'
import type { PlayerFamily, PlayerKind, PlayerView } from './players.types.js'

/** The profile flag allowing `action` (`create`, `edit`, `delete`, `use`) on a family: `player_theme.edit`. */
export const playerFlag = (kind: PlayerKind, action: 'create' | 'edit' | 'delete' | 'use'): string =>
  `${kind}.${action}`

/**
 * The theme or behavior named by the path (committed data), on the platform of the path, whose
 * access the caller already passed. One of another platform answers 404, as a missing one does,
 * so a platform path never reaches another tenant's settings.
 */
export async function playerFromPath<S extends object>(
  c: HttpContext,
  family: PlayerFamily<S>,
  platform: PlatformView,
): Promise<PlayerView<S>> {
  const slug = c.param(family.param)
  const found = await family.queries.bySlug(c.reader, slug)
  if (!found || found.platformId !== platform.id) throw notFound(`No ${family.label} "${slug}".`)
  return found
}
