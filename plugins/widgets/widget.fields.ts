import { type FieldReader, type Form, type HttpContext, forbidden } from '../../src/kernel/index.js'
import { type WidgetSize, parseSize } from './widget.size.js'

/** Longest widget name. */
export const NAME_MAX = 255
/** Longest slug (of a theme or behavior). */
const SLUG_MAX = 64

/** The two player settings a widget may refer to, by request field, with the profile flag that allows using one. */
export const PLAYER_FIELDS = [
  { field: 'player_theme', flag: 'player_theme.use', label: 'player theme' },
  { field: 'player_behavior', flag: 'player_behavior.use', label: 'player behavior' },
] as const

export type PlayerField = (typeof PLAYER_FIELDS)[number]['field']

/** The fields of a create (name and size set) or of a partial update (what was sent). */
export interface WidgetInput {
  name?: string
  size?: WidgetSize
  /** The slugs sent for `player_theme` / `player_behavior`: null sent empty (clear), undefined not sent. */
  players: Partial<Record<PlayerField, string | null>>
}

/**
 * Refuses (403) a request that sets a theme or a behavior (sends a non-empty slug) without the
 * profile flag `player_theme.use` / `player_behavior.use`. Checked before the fields, so a
 * user without the flag learns nothing of which slugs exist. Clearing one needs no flag.
 */
export function requirePlayerFlags(c: HttpContext, form: Form): void {
  for (const { field, flag } of PLAYER_FIELDS) {
    const value = form[field]
    if (typeof value === 'string' && value.trim() === '') continue
    if (value !== undefined && !c.authz.hasProfileFlag(c.principal, flag)) {
      throw forbidden(`This needs the "${flag}" permission of your profile.`)
    }
  }
}

/**
 * Reads the fields of `POST /resource/<slug>/widgets` (mode create: name and size required)
 * or of a `PUT` (mode update: only what was sent; name and size cannot be cleared). The slugs
 * of `player_theme` and `player_behavior` are only read here: the service checks them against
 * the resource's platform. Does not throw: the caller adds those checks, then calls `v.done()`.
 */
export function readWidgetFields(v: FieldReader): WidgetInput {
  const input: WidgetInput = { players: {} }
  const name = v.string('name', { required: true, max: NAME_MAX })
  if (name) input.name = name
  const size = v.string('size', { required: true })
  if (size) {
    const parsed = parseSize(size)
    if (parsed.ok) input.size = parsed.size
    else v.fail('size', parsed.error)
  }
  for (const { field } of PLAYER_FIELDS) {
    const slug = v.string(field, { max: SLUG_MAX })
    if (slug !== undefined) input.players[field] = slug
  }
  return input
}
