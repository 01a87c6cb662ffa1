import { createHash, randomBytes } from 'node:crypto'
import { type Agent, type ClientRequest, request as httpRequest } from 'node:http'

const md5 = (value: string): string => createHash('md5').update(value).digest('hex')

export interface Response {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface RequestOptions {
  headers?: Record<string, string>
  /** A urlencoded form, a raw string body, or a Buffer. */
  form?: Record<string, string | number>
  body?: string | Buffer
}

/**
 * Starts one plain HTTP request through a real socket (a new one, or `agent`'s kept-alive one), its body left for
 * the caller to write and end (`req`); `answer` resolves with the whole response.
 */
export function openRequest(
  url: string,
  method: string,
  options: { headers?: Record<string, string>; path?: string; agent?: Agent | false } = {},
): { req: ClientRequest; answer: Promise<Response> } {
  const target = new URL(url)
  let req!: ClientRequest
  const answer = new Promise<Response>((resolve, reject) => {
    req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: options.path ?? target.pathname + target.search,
        headers: options.headers,
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
  })
  return { req, answer }
}

/** Sends one plain HTTP request (no authentication) through a real socket. */
export function rawRequest(
  url: string,
  method: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; path?: string; agent?: Agent | false } = {},
): Promise<Response> {
  const { req, answer } = openRequest(url, method, options)
  // Written, then ended: with no Content-Length header the body goes chunked (end(body) would count it).
  if (options.body !== undefined) req.write(options.body)
  req.end()
  return answer
}

/** Parses a `WWW-Authenticate: Digest ...` challenge. */
export function parseChallenge(header: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of header.replace(/^Digest\s+/i, '').matchAll(/([a-z]+)=(?:"([^"]*)"|([^,\s]*))/gi)) {
    out[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? ''
  }
  return out
}

/**
 * A standard HTTP Digest client (RFC 7616, MD5, qop=auth), as curl or requests behave:
 * the first request gets the challenge, then the nonce is reused with a growing nc and a
 * fresh cnonce; a `stale=true` answer makes it take the new nonce and retry once.
 */
export class DigestClient {
  private challenge: Record<string, string> | undefined
  private nc = 0

  constructor(
    readonly baseUrl: string,
    readonly username: string,
    readonly apiKey: string,
  ) {}

  /** The Authorization header value for a request, advancing nc. */
  authorization(method: string, uri: string, overrides: Record<string, string> = {}): string {
    const c = this.challenge!
    this.nc += 1
    const nc = this.nc.toString(16).padStart(8, '0')
    const cnonce = randomBytes(8).toString('hex')
    const ha1 = md5(`${this.username}:${c.realm}:${this.apiKey}`)
    const ha2 = md5(`${method}:${uri}`)
    const response = md5(`${ha1}:${c.nonce}:${nc}:${cnonce}:auth:${ha2}`)
    const p: Record<string, string> = {
      username: this.username,
      realm: c.realm!,
      nonce: c.nonce!,
      uri,
      qop: 'auth',
      nc,
      cnonce,
      algorithm: 'MD5',
      response,
      opaque: c.opaque!,
      ...overrides,
    }
    const quoted = new Set(['username', 'realm', 'nonce', 'uri', 'cnonce', 'response', 'opaque'])
    return (
      'Digest ' +
      Object.entries(p)
        .map(([k, v]) => (quoted.has(k) ? `${k}="${v}"` : `${k}=${v}`))
        .join(', ')
    )
  }

  /** Fetches a fresh challenge (an unauthenticated GET /). */
  async handshake(): Promise<Record<string, string>> {
    const res = await rawRequest(this.baseUrl + '/', 'GET')
    this.challenge = parseChallenge(String(res.headers['www-authenticate']))
    this.nc = 0
    return this.challenge
  }

  /** Sends an authenticated request; `path` is relative to the base URL (with its query). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    if (!this.challenge) await this.handshake()
    const headers: Record<string, string> = { ...options.headers }
    let body = options.body
    if (options.form) {
      body = new URLSearchParams(
        Object.entries(options.form).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString()
      headers['content-type'] ??= 'application/x-www-form-urlencoded'
    }
    const uri = new URL(path, this.baseUrl + '/').pathname + (new URL(path, this.baseUrl + '/').search ?? '')
    const send = (): Promise<Response> =>
      rawRequest(this.baseUrl + uri, method, {
        headers: { ...headers, authorization: this.authorization(method, uri) },
        body,
      })
    let res = await send()
    if (res.status === 401 && /stale=true/.test(String(res.headers['www-authenticate']))) {
      this.challenge = parseChallenge(String(res.headers['www-authenticate']))
      this.nc = 0
      res = await send()
    }
    return res
  }

  get(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('GET', path, options)
  }
  post(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('POST', path, options)
  }
  put(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('PUT', path, options)
  }
  delete(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('DELETE', path, options)
  }
}
