import { type Router, type XmlNode, reply, xml } from '../../src/kernel/index.js'
import { type FileView, ownFile, wantsToken } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'
import { attachment, CACHE, serveStored } from './media-delivery.js'
import type { MediaLinks } from './media-links.js'
import { MEDIA_TOKEN_PURPOSE } from './media-token.js'
import { MEDIA_PERMISSION, mediaFile } from './media.routes.js'
import { type RenditionView, renditionQueries } from './rendition.queries.js'

const OWNER = 'the owner only (files are private); anyone else gets 404'

/** The facts of a rendition a player or a person needs: its type, size, and (when known) frame and length. */
const factsOf = (rendition: RenditionView): Record<string, string | number> => ({
  type: rendition.mimeType,
  size: rendition.size,
  ...(rendition.width != null ? { width: rendition.width } : {}),
  ...(rendition.height != null ? { height: rendition.height } : {}),
  ...(rendition.duration != null ? { duration: rendition.duration } : {}),
})

/**
 * `renditions`: the original (`source`), each flavor (`flavor`, largest first, as players choose), and the HLS
 * master playlist (`hls`), each with its URL (`src`, with a media token when asked `with-token`).
 */
export function renditionsXml(
  href: string,
  media: MediaLinks,
  file: FileView,
  renditions: readonly RenditionView[],
  withToken: boolean,
): XmlNode {
  const flavors = renditions
    .filter((rendition) => rendition.kind === 'flavor')
    .sort((a, b) => (b.height ?? 0) - (a.height ?? 0) || a.id - b.id)
  const hls = renditions.find((rendition) => rendition.kind === 'hls')
  return xml.el('renditions', { href }, [
    xml.el('source', { src: media.source(file, withToken), type: file.mimeType, size: file.size }),
    ...flavors.map((flavor) =>
      xml.el('flavor', { name: flavor.name, src: media.flavor(file, flavor, withToken), ...factsOf(flavor) }),
    ),
    ...(hls ? [xml.el('hls', { src: media.hls(file, hls, withToken) })] : []),
  ])
}

/**
 * Extensions of the contract for a file's own page (the console's, decision 0260): `GET /file/<slug>/renditions`
 * says what there is to play and download, and `GET /file/<slug>/source` downloads the uploaded original, to the owner
 * or a media token of the file like the file's other media.
 */
export function fileRenditionRoutes(r: Router, deps: EncodingDeps): void {
  r.get(
    '/file/:file/renditions',
    async (c) => {
      const file = await ownFile(c)
      const renditions = await renditionQueries.ofFile(c.reader, file.id)
      const href = c.links.url('file', file.slug, 'renditions')
      return reply.xml(200, renditionsXml(href, deps.media, file, renditions, wantsToken(c)))
    },
    { permission: OWNER },
  )

  r.get(
    '/file/:file/source',
    async (c) => {
      const file = await mediaFile(c)
      const answer = await serveStored(deps.storage, c, file.storageKey, file.mimeType, CACHE.media)
      return { ...answer, headers: { ...answer.headers, 'Content-Disposition': attachment(file.name) } }
    },
    { permission: MEDIA_PERMISSION, produces: 'application/octet-stream', tokenPurpose: MEDIA_TOKEN_PURPOSE },
  )
}
