import { XMLBuilder } from 'fast-xml-parser'

/** One XML element of a response: attributes, then either children or a text value. */
export interface XmlNode {
  name: string
  attrs?: Record<string, string | number>
  children?: XmlNode[]
  /** Plain text (numbers, booleans). */
  text?: string | number
  /** Text emitted in a CDATA section (strings). */
  cdata?: string
}

/**
 * Builders for response elements, so every plugin writes XML the same way
 * (API-DECISIONS: strings in CDATA, numbers as plain text, links as empty elements).
 */
export const xml = {
  /** An element with attributes and children. */
  el(name: string, attrs: Record<string, string | number> | undefined, children: XmlNode[] = []): XmlNode {
    return { name, attrs, children }
  },
  /** A string value in CDATA; null or undefined gives an empty CDATA section. */
  str(name: string, value: string | null | undefined, attrs?: Record<string, string | number>): XmlNode {
    return { name, attrs, cdata: value ?? '' }
  },
  /** A number as plain text; null or undefined gives an empty element. */
  num(name: string, value: number | null | undefined): XmlNode {
    return value == null ? { name } : { name, text: value }
  },
  /** A 0/1 flag as plain text. */
  flag(name: string, value: boolean): XmlNode {
    return { name, text: value ? 1 : 0 }
  },
  /** A boolean as `true` or `false`. */
  bool(name: string, value: boolean): XmlNode {
    return { name, text: value ? 'true' : 'false' }
  },
  /** A link `<name href="..."/>`, with `rel` when given; an empty element when href is null. */
  link(name: string, href: string | null | undefined, rel?: string): XmlNode {
    if (href == null) return { name }
    return { name, attrs: rel ? { href, rel } : { href } }
  },
  /** A date-time as ISO 8601 with offset, in CDATA; empty when null. */
  date(name: string, value: Date | null | undefined): XmlNode {
    return { name, cdata: value ? value.toISOString().replace('Z', '+00:00') : '' }
  },
}

type Ordered = Record<string, unknown>

function toOrdered(node: XmlNode): Ordered {
  let content: unknown[]
  if (node.children) content = node.children.map(toOrdered)
  else if (node.cdata !== undefined) content = [{ '#cdata': [{ '#text': node.cdata }] }]
  else if (node.text !== undefined) content = [{ '#text': node.text }]
  else content = []
  const out: Ordered = { [node.name]: content }
  if (node.attrs) {
    const attrs: Record<string, string | number> = {}
    for (const [key, value] of Object.entries(node.attrs)) attrs[`@_${key}`] = value
    out[':@'] = attrs
  }
  return out
}

const builder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  cdataPropName: '#cdata',
  suppressEmptyNode: true,
  format: false,
})

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

/** Serializes a response document; text and attributes are escaped, `]]>` split safely. */
export function renderXml(root: XmlNode): string {
  return DECLARATION + (builder.build([toOrdered(root)]) as string)
}
