import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { FileView } from '../files/index.js'
import type { MediaLinks } from './media-links.js'
import type { RenditionView } from './rendition.queries.js'

/**
 * `snapshots` (href) with one `snapshot` per snapshot: `id` (0 to 9, or `custom`), `src`
 * (the image URL) and `selected="true"` on the selected one only (the spec's form).
 */
export function snapshotsXml(
  links: LinkBuilder,
  media: MediaLinks,
  file: FileView,
  snapshots: readonly RenditionView[],
  withToken: boolean,
): XmlNode {
  return xml.el(
    'snapshots',
    { href: links.url('file', file.slug, 'snapshots') },
    snapshots.map((snapshot) =>
      xml.el('snapshot', {
        id: snapshot.name,
        src: media.snapshot(file, snapshot, withToken),
        ...(snapshot.selected ? { selected: 'true' } : {}),
      }),
    ),
  )
}
