import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { directoryUrl, fileSummaryXml } from './file.xml.js'
import type { DirectoryView, FileMedia, FileView } from './files.types.js'

/** The name the root directory shows: it has no row, so no name of its own (docs/decisions/0089-the-root-directory-is-not-a-row.md). */
export const ROOT_NAME = '/'

/** A directory answer (create, rename): href, slug, name and the parent link (`/files` for the root). */
export function directoryInfoXml(links: LinkBuilder, directory: DirectoryView): XmlNode {
  return xml.el('directory', { href: directoryUrl(links, directory.slug) }, [
    xml.str('slug', directory.slug),
    xml.str('name', directory.name),
    xml.link('directory', directoryUrl(links, directory.parentSlug), 'parent'),
  ])
}

/**
 * `GET /files` and `GET /files/<slug>`: one `files` element with href, name, the parent
 * link (none for the root), a `directory` per subdirectory and a `file` per file.
 */
export function directoryListingXml(
  links: LinkBuilder,
  directory: DirectoryView | null,
  subdirectories: readonly DirectoryView[],
  files: readonly FileView[],
  media?: ReadonlyMap<number, FileMedia>,
): XmlNode {
  return xml.el('files', { href: directoryUrl(links, directory?.slug ?? null) }, [
    xml.str('name', directory?.name ?? ROOT_NAME),
    ...(directory ? [xml.link('directory', directoryUrl(links, directory.parentSlug), 'parent')] : []),
    ...subdirectories.map((sub) =>
      xml.el('directory', { href: directoryUrl(links, sub.slug) }, [
        xml.str('slug', sub.slug),
        xml.str('name', sub.name),
      ]),
    ),
    ...files.map((file) => fileSummaryXml(links, file, media?.get(file.id))),
  ])
}

/** `GET /search/directories?name=`: `directories` of `directory` (href, name). */
export function directorySearchXml(links: LinkBuilder, href: string, found: readonly DirectoryView[]): XmlNode {
  return xml.el(
    'directories',
    { href },
    found.map((d) => xml.el('directory', { href: directoryUrl(links, d.slug) }, [xml.str('name', d.name)])),
  )
}
