import { expect } from 'vitest'
import type { Response } from './digest-client.js'
import { type XmlObject, list, parseXml, text } from './xml.js'

/** The content type of every XML answer. */
export const XML_TYPE = 'application/xml; charset=utf-8'
/** The first line of every XML answer. */
export const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
/** The message of every 412. */
export const INVALID = 'The submitted data is invalid.'
/** The 403 of a missing profile flag. */
export const NEEDS = (flag: string): string => `This needs the "${flag}" permission of your profile.`

/** Checks the status and the headers every XML answer carries, and returns the parsed document. */
export function xmlOf(res: Response, status: number): XmlObject {
  expect(res.status, res.body).toBe(status)
  expect(res.headers['x-api-version']).toBe('2.14.3')
  expect(res.headers['content-type']).toBe(XML_TYPE)
  expect(res.body.startsWith(DECLARATION)).toBe(true)
  return parseXml(res.body)
}

/** Checks an error answer: status, message and exactly the given fields, in order, byte for byte. */
export function expectError(res: Response, status: number, message: string, fields: Record<string, string> = {}): void {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['error'])
  const error = doc.error as XmlObject
  expect(text(error.status)).toBe(String(status))
  expect(text(error.message)).toBe(message)
  expect(list<XmlObject>(error.field).map((f) => [f['@name'], text(f)])).toEqual(Object.entries(fields))
  const fieldXml = Object.entries(fields)
    .map(([name, msg]) => `<field name="${name}"><![CDATA[${msg}]]></field>`)
    .join('')
  expect(res.body).toBe(
    `${DECLARATION}<error><status>${status}</status><message><![CDATA[${message}]]></message>${fieldXml}</error>`,
  )
}
