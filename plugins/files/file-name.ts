/** Longest file or directory name, in characters (the spec's string(255)). */
export const NAME_MAX = 255

// C0 and C1 controls, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g

/**
 * A client-side file name made harmless: only its last path segment (`../../etc/passwd` →
 * `passwd`, `a\b` → `b`), control characters dropped, spaces collapsed, at most 255
 * characters with the extension kept, and `file` when nothing usable is left. Names are data
 * only (storage keys are generated), so this is about clean listings, not safety.
 */
export function safeFileName(raw: string, fallback = 'file'): string {
  const last = raw.split(/[/\\]/).pop() ?? ''
  let name = last.replace(CONTROLS, '').replace(/\s+/g, ' ').trim()
  if (name === '' || name === '.' || name === '..') return fallback
  const chars = [...name]
  if (chars.length > NAME_MAX) {
    const dot = name.lastIndexOf('.')
    const extension = dot > 0 ? [...name.slice(dot)] : []
    const keep = extension.length > 0 && extension.length <= 16 ? extension : []
    name = chars.slice(0, NAME_MAX - keep.length).join('') + keep.join('')
  }
  return name
}
