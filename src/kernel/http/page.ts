/**
 * The conventions of HTML pages (player, recorder, portal, feeds' readers): escaping, and the
 * headers every page sends. Pages are TypeScript strings: the build copies no other file.
 */

/** The content type of pages. */
export const HTML_TYPE = 'text/html; charset=utf-8'

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

/** Markup already escaped (made by `html`), inserted as is into another `html` template. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup
  }
}

type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.markup
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/**
 * A template of markup whose interpolated values are escaped (text and attribute values
 * alike), unless they are `SafeHtml` (nested templates); arrays are joined, null,
 * undefined and false are left out. `html\`<h1>${title}</h1>\``.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return new SafeHtml(out)
}

/** How a page may be shown. */
export interface PageOptions {
  /**
   * Other sites may frame it (the player behind embed codes): `frame-ancestors *` and no
   * `X-Frame-Options`. Otherwise only pages of this site may (clickjacking).
   */
  embeddable?: boolean
  /** No page may frame it, not even of this site (`frame-ancestors 'none'`): pages holding sign-in and account forms. */
  unframeable?: boolean
  /** Content-Security-Policy directives replacing the defaults (`media-src`, `connect-src`, ...). */
  csp?: Record<string, string>
  /** `Cache-Control` (default `no-store`: pages may carry tokens or per-user content). */
  cache?: string
  /** More headers. */
  headers?: Record<string, string>
}

const DEFAULT_CSP: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data:",
  'media-src': "'self' blob:",
  'connect-src': "'self'",
  'font-src': "'self'",
  'form-action': "'self'",
  'base-uri': "'none'",
}

/**
 * The headers of a page: its type, a strict Content-Security-Policy (only our own scripts;
 * `options.csp` adds or replaces directives), framing rules, no MIME sniffing, no referrer
 * beyond the origin (page addresses may carry tokens).
 */
export function pageHeaders(options: PageOptions = {}): Record<string, string> {
  const directives = {
    ...DEFAULT_CSP,
    ...options.csp,
    'frame-ancestors': options.embeddable ? '*' : options.unframeable ? "'none'" : "'self'",
  }
  return {
    'Content-Type': HTML_TYPE,
    'Content-Security-Policy': Object.entries(directives)
      .map(([name, value]) => `${name} ${value}`)
      .join('; '),
    ...(options.embeddable ? {} : { 'X-Frame-Options': options.unframeable ? 'DENY' : 'SAMEORIGIN' }),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cache-Control': options.cache ?? 'no-store',
    ...options.headers,
  }
}

/** A small, self-contained error page (404 for a missing player, 403 for a refused token). */
export function errorPage(status: number, message: string): string {
  const titles: Record<number, string> = {
    400: 'Bad request',
    401: 'Sign-in needed',
    403: 'Not allowed',
    404: 'Not found',
    410: 'Gone',
    412: 'Not accepted',
    500: 'Something went wrong',
  }
  const title = titles[status] ?? `Error ${status}`
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#111;color:#eee}
main{max-width:32rem;padding:1.5rem;text-align:center}h1{font-size:1.25rem;margin:0 0 .5rem}</style></head>
<body><main role="alert" data-status="${status}"><h1>${title}</h1><p>${message}</p></main></body></html>`.markup
}
