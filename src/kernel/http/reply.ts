import { type PageOptions, type SafeHtml, pageHeaders } from './page.js'
import type { Readable } from 'node:stream'
import type { XmlNode } from './xml.js'

/** What a route handler answers. */
export interface Reply {
  status: number
  /** An XML document (rendered with the kernel's conventions). */
  xml?: XmlNode
  /** A raw body, for the few answers that are not XML (JSON pieces, PEM, media bytes). */
  body?: string | Buffer | Readable
  /** Content type of a raw body. */
  type?: string
  headers?: Record<string, string>
  /** The handler wrote the answer itself (a protocol library such as tus): nothing more to send. */
  handled?: boolean
}

export const reply = {
  /** An XML answer. */
  xml(status: number, node: XmlNode, headers?: Record<string, string>): Reply {
    return { status, xml: node, headers }
  },
  /** 204 No Content. */
  noContent(): Reply {
    return { status: 204 }
  },
  /** The handler already answered through `c.res` (see `Router.all`). */
  handled(): Reply {
    return { status: 0, handled: true }
  },
  /** A JSON answer (the pieces of a chunked upload, the upload endpoints behind upload links). */
  json(status: number, value: unknown, headers?: Record<string, string>): Reply {
    return { status, body: JSON.stringify(value), type: 'application/json; charset=utf-8', headers }
  },
  /** An HTML page, with the page headers (see `pageHeaders`: CSP, framing, no sniffing, no-store by default). */
  page(status: number, body: string | SafeHtml, options: PageOptions = {}): Reply {
    const markup = typeof body === 'string' ? body : body.markup
    const { 'Content-Type': type, ...headers } = pageHeaders(options)
    return { status, body: markup, type, headers }
  },
  /** A raw answer with its content type. */
  raw(status: number, body: string | Buffer | Readable, type: string, headers?: Record<string, string>): Reply {
    return { status, body, type, headers }
  },
}
