import { type HttpContext, type SafeHtml, html } from '../../src/kernel/index.js'

/**
 * The page a request asks with `?page=` (1-based; absent: 1), or null when it is not a page
 * number (the route answers 404: a page that cannot exist).
 */
export function requestedPage(c: HttpContext): number | null {
  const sent = new URLSearchParams(c.search).get('page')
  if (sent === null) return 1
  return /^[1-9]\d{0,5}$/.test(sent) ? Number(sent) : null
}

/** How many pages `total` items make, `size` a page (at least one, so an empty list has its page 1). */
export const pageCount = (total: number, size: number): number => Math.max(1, Math.ceil(total / size))

/** Previous / next links between pages of a list, and where the visitor is; null for a single page. */
export function pager(page: number, pages: number, hrefOf: (page: number) => string, label: string): SafeHtml | null {
  if (pages <= 1) return null
  const previous = page > 1 ? html`<li><a rel="prev" href="${hrefOf(page - 1)}">Previous page</a></li>` : null
  const next = page < pages ? html`<li><a rel="next" href="${hrefOf(page + 1)}">Next page</a></li>` : null
  return html`<nav class="pager" aria-label="${label}"><ul>${previous}<li><span aria-current="page">Page ${page} of ${pages}</span></li>${next}</ul></nav>`
}
