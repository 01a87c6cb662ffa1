import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { MetadataDefinitionView as Definition, MetadataValue } from './metadata.types.js'

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

/** An XML element name for a metadatum: its slug, which is one unless it starts with a digit. */
const elementName = (slug: string): string => (/^[a-z_]/.test(slug) ? slug : `m-${slug}`)

/**
 * `<metadata>` of a file or a resource: one child per value (values are stored by definition
 * id), named after the definition's slug (as the real answers show), with its name.
 */
export function metadataValuesXml(
  values: Readonly<Record<string, MetadataValue>>,
  definitions: readonly Definition[],
): XmlNode {
  const children: XmlNode[] = []
  for (const definition of definitions) {
    const value = values[String(definition.id)]
    if (value === undefined) continue
    const name = elementName(definition.slug)
    const attrs = { name: definition.name }
    if (typeof value === 'string') children.push(xml.str(name, value, attrs))
    else if (typeof value === 'boolean') children.push({ name, attrs, text: value ? 1 : 0 })
    else children.push({ name, attrs, text: value })
  }
  return xml.el('metadata', undefined, children)
}
