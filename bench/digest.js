/**
 * HTTP Digest helpers shared by the benchmark scripts (bench/run.js, bench/uploads.js): a
 * plain node:http request, the server's 401 challenge and the Authorization header of one
 * request (MD5, qop=auth), computed the way a standard client does.
 */
import { createHash, randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'

export const md5 = (value) => createHash('md5').update(value).digest('hex')

/**
 * One plain HTTP/1.1 request (GET unless `method` says otherwise, `body` a string or Buffer);
 * resolves with status, headers, raw header pairs and body bytes.
 */
export function fetchRaw(base, path, headers = {}, { method = 'GET', body } = {}) {
  const url = new URL(base)
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => {
        const pairs = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]])
        resolvePromise({ status: res.statusCode, headers: res.headers, pairs, body: Buffer.concat(chunks) })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Parses a `WWW-Authenticate: Digest ...` challenge. */
export function parseChallenge(header) {
  const out = {}
  for (const m of String(header)
    .replace(/^Digest\s+/i, '')
    .matchAll(/([a-z]+)=(?:"([^"]*)"|([^,\s]*))/gi)) {
    out[m[1].toLowerCase()] = m[2] ?? m[3] ?? ''
  }
  return out
}

/** A fresh server nonce (and the opaque and realm to echo) from an unauthenticated request. */
export async function challenge(base) {
  const res = await fetchRaw(base, '/')
  if (res.status !== 401) throw new Error(`expected a 401 challenge from GET /, got ${res.status}`)
  return parseChallenge(res.headers['www-authenticate'])
}

/** The Authorization header for one request. */
export function authorization(cred, c, nc, method, uri, ha2 = md5(`${method}:${uri}`)) {
  const ncHex = nc.toString(16).padStart(8, '0')
  const cnonce = randomBytes(8).toString('hex')
  const response = md5(`${cred.ha1}:${c.nonce}:${ncHex}:${cnonce}:auth:${ha2}`)
  return (
    `Digest username="${cred.username}", realm="${c.realm}", nonce="${c.nonce}", uri="${uri}", ` +
    `qop=auth, nc=${ncHex}, cnonce="${cnonce}", algorithm=MD5, response="${response}", opaque="${c.opaque}"`
  )
}

/** One authenticated request with a fresh nonce (nc 1): what a Digest client sends after its challenge. */
export async function digestFetch(base, cred, method, path, headers = {}, body) {
  const c = await challenge(base)
  return fetchRaw(base, path, { ...headers, Authorization: authorization(cred, c, 1, method, path) }, { method, body })
}
