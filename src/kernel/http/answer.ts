import { XML_CONTENT_TYPE } from './negotiate.js'
import { type TimestampDialect, type XmlNode, renderXml } from './xml.js'

/** An answer as written: status, headers and body. */
export interface Answer {
  status: number
  headers: Readonly<Record<string, string | number>>
  body: Buffer
}

/** An XML reply as the status, headers and bytes it is written with. */
export function xmlAnswer(
  reply: { status: number; xml: XmlNode; headers?: Record<string, string> },
  extra: Record<string, string>,
  dialect: TimestampDialect,
): Answer {
  const body = Buffer.from(renderXml(reply.xml, dialect))
  const headers: Record<string, string | number> = { ...extra, ...reply.headers }
  headers['Content-Type'] ??= XML_CONTENT_TYPE
  headers['Content-Length'] = body.length
  return { status: reply.status, headers, body }
}
