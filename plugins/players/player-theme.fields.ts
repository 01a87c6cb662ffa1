import type { FieldReader } from '../../src/kernel/index.js'
import { kept, sent } from './player.fields.js'
import { LOGO_POSITIONS, type ThemeSettings } from './player-theme.entity.js'

/** Longest logo URL, in characters (after normalization). */
export const LOGO_URL_MAX = 1024

/** A CSS hex color of six digits (`#1a2b3c`), any case: the player uses it in CSS as it is. */
const HEX_COLOR = /^#[0-9a-f]{6}$/i

/**
 * A logo URL checked and normalized (WHATWG URL: scheme and host lowercased, characters such
 * as quotes and spaces percent-encoded), or what is wrong with it. Only absolute http(s) URLs
 * without credentials: the URL ends up in public embed codes, where `javascript:` or `data:`
 * would run or smuggle content and a password would leak.
 */
export function parseLogoUrl(value: string): { ok: true; url: string } | { ok: false; error: string } {
  const notHttp = { ok: false, error: 'must be an absolute http or https URL' } as const
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return notHttp
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return notHttp
  if (url.username || url.password) return { ok: false, error: 'must not carry a user name or password' }
  if ([...url.href].length > LOGO_URL_MAX) return { ok: false, error: `must be at most ${LOGO_URL_MAX} characters` }
  return { ok: true, url: url.href }
}

function color(v: FieldReader, field: string): string | undefined {
  const value = v.string(field, {
    pattern: { regex: HEX_COLOR, message: 'must be a CSS hex color #rrggbb, for example #1a2b3c' },
  })
  return kept(v, field, value)?.toLowerCase()
}

function logoUrl(v: FieldReader): string | null | undefined {
  const value = v.string('logo_url', { max: LOGO_URL_MAX })
  if (typeof value !== 'string') return value
  const parsed = parseLogoUrl(value)
  if (parsed.ok) return parsed.url
  v.fail('logo_url', parsed.error)
  return undefined
}

/** The theme settings sent: colors lowercased, the logo URL normalized; `logo_url` sent empty removes the logo. */
export function readThemeSettings(v: FieldReader): Partial<ThemeSettings> {
  return sent<ThemeSettings>({
    backgroundColor: color(v, 'background_color'),
    textColor: color(v, 'text_color'),
    accentColor: color(v, 'accent_color'),
    logoUrl: logoUrl(v),
    logoPosition: kept(v, 'logo_position', v.oneOf('logo_position', LOGO_POSITIONS)),
  })
}
