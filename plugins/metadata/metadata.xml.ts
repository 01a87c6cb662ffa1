import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { MetadataDefinitionView as Definition } from './metadata.types.js'

function fields(d: Definition): XmlNode[] {
  return [
    xml.str('slug', d.slug),
    xml.str('name', d.name),
    xml.str('type', d.type),
    xml.str('file_type', d.fileTypes.join(',')),
    // 0/1, like is_active on users (the spec shows neither form for this field).
    xml.flag('is_protected', d.isProtected),
    xml.str('default_value', d.defaultValue),
  ]
}

/** A definition in a list: href, slug, name, type, file_type, is_protected, default_value. */
export function metadataSummaryXml(links: LinkBuilder, d: Definition): XmlNode {
  return xml.el('metadata', { href: links.url('metadata', d.slug) }, fields(d))
}

/** Definition info (also the create and update answers): the list fields and the platform link. */
export function metadataInfoXml(links: LinkBuilder, d: Definition): XmlNode {
  return xml.el('metadata', { href: links.url('metadata', d.slug) }, [
    ...fields(d),
    xml.link('platform', links.url('platform', d.platformSlug)),
  ])
}

/** `GET /platform/<slug>/metadata`: `metadata` of `metadata` entries. */
export function metadataListXml(links: LinkBuilder, platformSlug: string, items: Definition[]): XmlNode {
  return xml.el(
    'metadata',
    { href: links.url('platform', platformSlug, 'metadata') },
    items.map((d) => metadataSummaryXml(links, d)),
  )
}
