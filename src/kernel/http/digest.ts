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

/**
 * Parses `Digest a=b, c="d"` into its parameters; null when it is not a Digest header, is
 * longer than MAX_DIGEST_HEADER, or names a parameter twice (which value would count is
 * ambiguous, so neither does).
 */
export function parseDigestHeader(header: string): Record<string, string> | null {
  if (header.length > MAX_DIGEST_HEADER) return null
  const match = /^\s*Digest\s+(.+)$/is.exec(header)
  if (!match) return null
  const params: Record<string, string> = Object.create(null) as Record<string, string>
  const re = /\s*([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/gy
  const body = match[1]!
  let consumed = 0
  let part: RegExpExecArray | null
  while (consumed < body.length && (part = re.exec(body)) !== null) {
    const name = part[1]!.toLowerCase()
    if (name in params) return null
    params[name] = part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : part[3]!
    consumed = re.lastIndex
  }
  return consumed >= body.trimEnd().length ? params : null
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
