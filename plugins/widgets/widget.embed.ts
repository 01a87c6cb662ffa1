import type { LinkBuilder } from '../../src/kernel/index.js'

/** The permanent embed codes of a widget: HTML to paste into a page. */
export interface EmbedCodes {
  /** An `<iframe>` of the player page, sized as the widget. */
  iframe: string
  /** A `<script>` that writes the player where it is included. */
  javascript: string
}

const HTML_SPECIAL = /[&<>"']/g
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text made safe inside an HTML attribute value (double-quoted) or element content. */
export const escapeHtml = (text: string): string => text.replace(HTML_SPECIAL, (c) => HTML_ENTITIES[c]!)

/**
 * The embed codes of a widget, pointing at its player page `<base>/embed/<slug>` (the iframe)
 * and `<base>/embed/<slug>.js` (the script). They hold no session or token, so they stay valid
 * as long as the widget exists. The name, user text, is escaped in the iframe's title.
 */
export function embedCodes(
  links: LinkBuilder,
  widget: { slug: string; name: string; width: number; height: number },
): EmbedCodes {
  const page = escapeHtml(links.url('embed', widget.slug))
  const script = escapeHtml(links.url('embed', `${widget.slug}.js`))
  return {
    iframe:
      `<iframe src="${page}" width="${widget.width}" height="${widget.height}" frameborder="0" ` +
      `allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="${escapeHtml(widget.name)}"></iframe>`,
    javascript: `<script src="${script}" async></script>`,
  }
}

/** The `code` of a widget in a resource's answers (spec: URL-encoded embed code): the iframe, URL-encoded. */
export const embedCode = (links: LinkBuilder, widget: Parameters<typeof embedCodes>[1]): string =>
  encodeURIComponent(embedCodes(links, widget).iframe)
