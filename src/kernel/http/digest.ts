import { createHmac, randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { md5Hex, safeEqual } from '../../shared/secrets.js'
import type { DigestCredentials } from '../ports/credentials.port.js'
import type { NonceCounterPort } from '../ports/nonce-counter.port.js'
import { HttpError, badRequest } from './errors.js'

export interface DigestOptions {
  realm: string
  /** Nonce lifetime, in seconds. */
  nonceTtl: number
  /** Server secret: signs nonces so any serving process can check them. */
  secret: string
  /**
   * Told of every refused credentials (not of a missing header, the first step of every
   * client, nor of an expired nonce, which a client renews on its own): for the log that
   * fail2ban or a proxy's rate limiter reads. Never given the response hash.
   */
  onRefused?(refusal: DigestRefusal): void
}

/** A refused Digest attempt, as logged. */
export interface DigestRefusal {
  /** The client's address (the socket's peer). */
  ip: string | undefined
  /** The username sent, when there was one (cut to 64 characters). */
  username: string | undefined
  /** Why, in the words of the 401's message. */
  reason: string
}

/**
 * The longest Digest header taken (8 KiB: `uri` repeats the request target, which may be
 * long); the real ones are a few hundred bytes, and nothing longer is even parsed.
 */
export const MAX_DIGEST_HEADER = 8192

/** No username is longer (identity's rule is stricter): a longer one is refused before any lookup. */
const MAX_USERNAME = 255

/** JavaScript's `\s` (white space and line terminators): what the grammar skips between tokens. */
function isSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 160 ||
    c === 5760 ||
    (c >= 8192 && c <= 8202) ||
    c === 8232 ||
    c === 8233 ||
    c === 8239 ||
    c === 8287 ||
    c === 12288 ||
    c === 65279
  )
}

/** `[a-zA-Z0-9_-]`: a parameter's name. */
const isNameChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45

/** What may not follow a backslash in a quoted value. */
const isLineTerminator = (c: number): boolean => c === 10 || c === 13 || c === 8232 || c === 8233

const QUOTE = 34
const COMMA = 44
const EQUALS = 61
const BACKSLASH = 92

/** The first index from `i` that is not a space. */
function skipSpaces(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++
  return i
}

/** Whether `text` has the scheme name `Digest` (ASCII, any case) at `i`. */
function digestAt(text: string, i: number): boolean {
  const word = 'digest'
  for (let k = 0; k < word.length; k++) {
    const c = text.charCodeAt(i + k)
    if (!(c === word.charCodeAt(k) || c === word.charCodeAt(k) - 32)) return false
  }
  return true
}

/**
 * Parses `Digest a=b, c="d"` into its parameters; null when it is not a Digest header, is
 * longer than MAX_DIGEST_HEADER, or names a parameter twice (which value would count is
 * ambiguous, so neither does). A scanner rather than a regular expression: it runs on every
 * request, and the expression took about 10 µs of the 80 a kept answer costs. The grammar is
 * the expression's, kept in the tests as the reference it is compared with.
 */
export function parseDigestHeader(header: string): Record<string, string> | null {
  const n = header.length
  if (n > MAX_DIGEST_HEADER) return null
  let i = skipSpaces(header, 0)
  if (!digestAt(header, i)) return null
  i += 6
  const spaces = i
  i = skipSpaces(header, i)
  if (i === spaces) return null
  // The parameters need one character: with only spaces left, the last one stands for them.
  if (i === n) {
    if (i - spaces < 2) return null
    i = n - 1
  }
  const bodyStart = i
  const params: Record<string, string> = Object.create(null) as Record<string, string>
  let consumed = bodyStart
  while (consumed < n) {
    let p = skipSpaces(header, consumed)
    const nameStart = p
    while (p < n && isNameChar(header.charCodeAt(p))) p++
    if (p === nameStart) break
    const name = header.slice(nameStart, p).toLowerCase()
    p = skipSpaces(header, p)
    if (header.charCodeAt(p) !== EQUALS) break
    p = skipSpaces(header, p + 1)
    let value = ''
    if (header.charCodeAt(p) === QUOTE) {
      p += 1
      let from = p
      let closed = false
      while (p < n) {
        const c = header.charCodeAt(p)
        if (c === QUOTE) {
          closed = true
          break
        }
        if (c === BACKSLASH) {
          if (p + 1 >= n || isLineTerminator(header.charCodeAt(p + 1))) break
          value += header.slice(from, p) + header[p + 1]
          p += 2
          from = p
          continue
        }
        p++
      }
      if (!closed) break
      value += header.slice(from, p)
      p += 1
    } else {
      const from = p
      while (p < n) {
        const c = header.charCodeAt(p)
        if (isSpace(c) || c === COMMA || c === QUOTE) break
        p++
      }
      value = header.slice(from, p)
    }
    p = skipSpaces(header, p)
    if (p < n) {
      if (header.charCodeAt(p) !== COMMA) break
      p += 1
    }
    if (name in params) return null
    params[name] = value
    consumed = p
  }
  let end = n
  while (end > bodyStart && isSpace(header.charCodeAt(end - 1))) end--
  return consumed >= end ? params : null
}

/**
 * The credentials a request carries: `Authorization`, or a request header named
 * `WWW-Authenticate` as the specification's example sends them; undefined without either.
 */
export function credentialsHeader(req: IncomingMessage): string | undefined {
  return req.headers.authorization ?? (req.headers['www-authenticate'] as string | undefined)
}

/**
 * Stateless Digest (RFC 7616 subset the contract uses: MD5, qop=auth). Nonces are
 * `<issued-ms>.<random>.<hmac>`, checkable by any process that shares the secret.
 */
export class DigestAuth {
  readonly opaque: string
  /** Issue times of nonces whose signature was already checked (signed values never change). */
  private readonly verified = new Map<string, number>()

  constructor(
    private readonly options: DigestOptions,
    private readonly counter: NonceCounterPort,
  ) {
    this.opaque = this.sign('opaque').slice(0, 32)
  }

  private sign(value: string): string {
    return createHmac('sha256', this.options.secret).update(value).digest('base64url')
  }

  /** A fresh nonce. */
  nonce(now = Date.now()): string {
    const body = `${now.toString(36)}.${randomBytes(9).toString('base64url')}`
    return `${body}.${this.sign(body).slice(0, 27)}`
  }

  /** The `WWW-Authenticate` challenge; `stale` tells the client only the nonce expired. */
  challenge(stale = false): string {
    const { realm } = this.options
    return (
      `Digest realm="${realm}", domain="/", qop="auth", algorithm=MD5, ` +
      `nonce="${this.nonce()}", opaque="${this.opaque}"${stale ? ', stale=true' : ''}`
    )
  }

  /** Whether a nonce was issued by us; its age in seconds when it was, else null. */
  nonceAge(nonce: string, now = Date.now()): number | null {
    const known = this.verified.get(nonce)
    if (known !== undefined) return (now - known) / 1000
    const parts = nonce.split('.')
    if (parts.length !== 3) return null
    const [issued, random, signature] = parts as [string, string, string]
    if (!safeEqual(signature, this.sign(`${issued}.${random}`).slice(0, 27))) return null
    const at = parseInt(issued, 36)
    if (!Number.isFinite(at)) return null
    // Bounded: a flood of distinct valid nonces only costs re-verification.
    if (this.verified.size >= 10_000) this.verified.clear()
    this.verified.set(nonce, at)
    return (now - at) / 1000
  }

  private unauthorized(message: string, stale = false): HttpError {
    return new HttpError(401, message, {}, { 'WWW-Authenticate': this.challenge(stale) })
  }

  /** The 401 answer for a request without usable credentials. */
  missing(): HttpError {
    return this.unauthorized('Authentication required: use HTTP Digest with your username and API key.')
  }

  /**
   * Checks a request's credentials (from `Authorization`, or a request header named
   * `WWW-Authenticate` as the spec's example sends them) and returns the user, or throws
   * 401 with a challenge (400 when `uri` does not name the request).
   */
  async authenticate(
    req: IncomingMessage,
    lookup: (username: string) => Promise<DigestCredentials | null>,
  ): Promise<DigestCredentials> {
    const header = credentialsHeader(req)
    if (!header) throw this.missing()
    try {
      return await this.check(req, header, lookup)
    } catch (error) {
      const stale = error instanceof HttpError && error.headers['WWW-Authenticate']?.endsWith('stale=true')
      if (error instanceof HttpError && !stale) {
        const username = parseDigestHeader(header)?.username
        this.options.onRefused?.({
          ip: req.socket?.remoteAddress,
          username: username?.slice(0, 64),
          reason: error.message,
        })
      }
      throw error
    }
  }

  private async check(
    req: IncomingMessage,
    header: string,
    lookup: (username: string) => Promise<DigestCredentials | null>,
  ): Promise<DigestCredentials> {
    const p = parseDigestHeader(header)
    if (!p) {
      throw this.unauthorized('Malformed Authorization header: expected HTTP Digest credentials.')
    }
    const { username, realm, nonce, uri, response, qop, nc, cnonce, opaque } = p
    if (!username || !realm || !nonce || !uri || !response || !nc || !cnonce || !qop) {
      throw this.unauthorized(
        'Incomplete Digest credentials: username, realm, nonce, uri, qop, nc, cnonce and response are needed.',
      )
    }
    if (realm !== this.options.realm) throw this.unauthorized(`Wrong realm: use "${this.options.realm}".`)
    if (qop !== 'auth') throw this.unauthorized('Unsupported qop: use qop=auth.')
    if (p.algorithm && p.algorithm.toUpperCase() !== 'MD5') throw this.unauthorized('Unsupported algorithm: use MD5.')
    if (!opaque || !safeEqual(opaque, this.opaque)) {
      throw this.unauthorized('The opaque value must be echoed from the challenge.')
    }
    if (username.length > MAX_USERNAME) throw this.unauthorized('Wrong username or API key.')
    if (!/^[0-9a-fA-F]{8}$/.test(nc)) throw this.unauthorized('The nonce count (nc) must be 8 hexadecimal digits.')
    if (uri !== req.url) throw badRequest('The Digest uri does not match the request target.')
    const age = this.nonceAge(nonce)
    if (age === null) throw this.unauthorized('Unknown nonce: authenticate again with the new challenge.')

    const user = await lookup(username)
    // An unknown user is checked against a throwaway HA1, so both cases take the same time.
    const ha1 = user?.ha1 ?? md5Hex(`${username}:${realm}:${randomBytes(16).toString('hex')}`)
    const ha2 = md5Hex(`${req.method}:${uri}`)
    const expected = md5Hex(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`)
    if (!safeEqual(expected, response.toLowerCase()) || !user) {
      throw this.unauthorized('Wrong username or API key.')
    }
    if (age > this.options.nonceTtl || age < -60)
      throw this.unauthorized('The nonce has expired: retry with the new one.', true)
    const fresh = await this.counter.advance(nonce, parseInt(nc, 16), this.options.nonceTtl - age + 1)
    if (!fresh) throw this.unauthorized('Replayed request: use each nonce count (nc) once, counting up.')
    if (!user.isActive) throw this.unauthorized('This user is inactive.')
    return user
  }
}
