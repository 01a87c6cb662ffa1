import { XMLParser, XMLValidator } from 'fast-xml-parser'

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type XmlObject = Record<string, any>

/** Parses an XML response body; throws (failing the test) when it is not well-formed. */
export function parseXml(body: string): XmlObject {
  const valid = XMLValidator.validate(body)
  if (valid !== true) throw new Error(`not well-formed XML: ${JSON.stringify(valid.err)}\n${body}`)
  return parser.parse(body) as XmlObject
}

/** The text of a parsed element (CDATA sections are joined), '' when empty. */
export function text(node: unknown): string {
  if (node == null) return ''
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (typeof node === 'object' && '#text' in (node as object)) return String((node as XmlObject)['#text'])
  return ''
}

/** A repeated child as an array, whether the parser gave one element, many or none. */
export function list<T = XmlObject>(node: T | T[] | undefined): T[] {
  if (node === undefined || node === '') return []
  return Array.isArray(node) ? node : [node]
}
