/**
 * How date-times are written in answers: ISO 8601 with offset (the specification, 2.14.3),
 * or Unix seconds (what the original service answered, and what its old clients parse).
 */
export type TimestampDialect = 'iso8601' | 'unix'

/** One XML element of a response: attributes, then either children or a text value. */
export interface XmlNode {
  name: string
  attrs?: Record<string, string | number>
  children?: XmlNode[]
  /** Plain text (numbers, booleans). */
  text?: string | number
  /** Text emitted in a CDATA section (strings). */
  cdata?: string
  /** A date-time, written in CDATA in the answer's dialect when rendered; null: empty. */
  date?: Date | null
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
  /**
   * A date-time in CDATA, empty when null: ISO 8601 with offset, or Unix seconds, as the
   * answer's dialect says (`renderXml`): one place decides for every date of every answer.
   */
  date(name: string, value: Date | null | undefined): XmlNode {
    return { name, date: value ?? null }
  },
}

// Characters XML 1.0 cannot carry at all (C0 controls but tab/newline/return, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const HAS_NOT_XML = new RegExp(NOT_XML.source)
const SPECIAL = /[&<>"']/g
const HAS_SPECIAL = /[&<>"']/
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/** Replaces characters XML cannot carry with U+FFFD, so output stays well-formed whatever the data. */
function xmlSafe(value: string): string {
  return HAS_NOT_XML.test(value) ? value.replace(NOT_XML, '\uFFFD') : value
}

/** Escapes text and attribute values (the five predefined entities). */
function escape(value: string | number): string {
  if (typeof value === 'number') return String(value)
  const safe = xmlSafe(value)
  return HAS_SPECIAL.test(safe) ? safe.replace(SPECIAL, (c) => ENTITIES[c]!) : safe
}

/** A CDATA section; a `]]>` inside the value is split across two sections. */
function cdata(value: string): string {
  return `<![CDATA[${xmlSafe(value).replaceAll(']]>', ']]]]><![CDATA[>')}]]>`
}

/** A date-time as the dialect writes it. */
export function formatDate(date: Date, dialect: TimestampDialect): string {
  return dialect === 'unix' ? String(Math.floor(date.getTime() / 1000)) : date.toISOString().replace('Z', '+00:00')
}

function write(node: XmlNode, out: string[], dialect: TimestampDialect): void {
  out.push('<', node.name)
  if (node.attrs) for (const key in node.attrs) out.push(' ', key, '="', escape(node.attrs[key]!), '"')
  if (node.children?.length) {
    out.push('>')
    for (const child of node.children) write(child, out, dialect)
    out.push('</', node.name, '>')
  } else if (node.date !== undefined) {
    out.push('>', cdata(node.date ? formatDate(node.date, dialect) : ''), '</', node.name, '>')
  } else if (node.cdata !== undefined) {
    out.push('>', cdata(node.cdata), '</', node.name, '>')
  } else if (node.text !== undefined && node.text !== '') {
    out.push('>', escape(node.text), '</', node.name, '>')
  } else {
    out.push('/>')
  }
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

/**
 * Serializes a response document: element and attribute names come from code, values are
 * escaped, strings go in CDATA with `]]>` split safely, and characters XML cannot carry are
 * replaced. (Written directly rather than through an XML builder: it is on every request's
 * path and the benchmark showed a builder costing more than the rest of a list answer.)
 */
export function renderXml(root: XmlNode, dialect: TimestampDialect = 'iso8601'): string {
  const out: string[] = [DECLARATION]
  write(root, out, dialect)
  return out.join('')
}
