import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'

/** The recorder's frame: camera and microphone allowed, the size the spec's clients expect. */
export const RECORDER_WIDTH = 640
export const RECORDER_HEIGHT = 480

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The HTML a third-party page includes: an iframe of the recorder page of one code. */
export function recorderSnippet(links: LinkBuilder, code: string): string {
  const src = escapeAttribute(links.url('recorder', code))
  return `<iframe src="${src}" width="${RECORDER_WIDTH}" height="${RECORDER_HEIGHT}" allow="camera; microphone" frameborder="0"></iframe>`
}

/** `GET /extension/widget/recorder`: `widget` with its `code`, the snippet URL-encoded (encodeURIComponent). */
export function recorderWidgetXml(links: LinkBuilder, code: string): XmlNode {
  return xml.el('widget', { href: links.url('extension', 'widget', 'recorder') }, [
    xml.str('code', encodeURIComponent(recorderSnippet(links, code))),
  ])
}

/** The upload links of a recorder code: the `links` answer of `POST /files/upload_links`, at another address. */
export function uploadLinksXml(href: string, base: string, token: string): XmlNode {
  const query = `token=${encodeURIComponent(token)}`
  return xml.el('links', { href }, [
    { name: 'link', attrs: { rel: 'html', href: `${base}/upload/html?${query}` } },
    { name: 'link', attrs: { rel: 'json', href: `${base}/upload/json?${query}` } },
  ])
}
