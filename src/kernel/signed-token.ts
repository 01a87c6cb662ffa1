import { createHmac } from 'node:crypto'
import { safeEqual } from '../shared/secrets.js'

/** Why a token was refused. */
export type TokenProblem = 'malformed' | 'forged' | 'expired'

/** The outcome of `verifyToken`. */
export type TokenCheck<T> = { ok: true; payload: T; expiresAt: Date } | { ok: false; problem: TokenProblem }

const mac = (secret: string, purpose: string, body: string): string =>
  createHmac('sha256', secret).update(`${purpose}.${body}`).digest('base64url')

/**
 * A URL-safe token carrying `payload` until `expiresAt`, signed with the server secret for
 * one `purpose` (a token made for uploads does not open media). Any serving process can
 * check it: no state is kept. The payload is readable by whoever holds the token.
 */
export function signToken(secret: string, purpose: string, payload: object, expiresAt: Date): string {
  const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(expiresAt.getTime() / 1000) })).toString(
    'base64url',
  )
  return `${body}.${mac(secret, purpose, body)}`
}

/** Checks a token of `signToken` for `purpose`: its signature, then its expiry. */
export function verifyToken<T extends object>(
  secret: string,
  purpose: string,
  token: string,
  now = Date.now(),
): TokenCheck<T> {
  const dot = token.indexOf('.')
  if (dot <= 0 || token.length > 4096) return { ok: false, problem: 'malformed' }
  const body = token.slice(0, dot)
  if (!safeEqual(token.slice(dot + 1), mac(secret, purpose, body))) return { ok: false, problem: 'forged' }
  let payload: T & { exp?: unknown }
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp?: unknown }
  } catch {
    return { ok: false, problem: 'malformed' }
  }
  if (typeof payload !== 'object' || payload === null || typeof payload.exp !== 'number') {
    return { ok: false, problem: 'malformed' }
  }
  if (payload.exp * 1000 <= now) return { ok: false, problem: 'expired' }
  return { ok: true, payload, expiresAt: new Date(payload.exp * 1000) }
}

/**
 * Signing and checking with the server secret, which stays inside the kernel: plugins get
 * this (`ctx.tokens`), never the secret.
 */
export interface Tokens {
  /** `signToken` with the server secret. */
  sign(purpose: string, payload: object, expiresAt: Date): string
  /** `verifyToken` with the server secret. */
  verify<T extends object>(purpose: string, token: string, now?: number): TokenCheck<T>
}

export function tokensWith(secret: string): Tokens {
  return {
    sign: (purpose, payload, expiresAt) => signToken(secret, purpose, payload, expiresAt),
    verify: (purpose, token, now) => verifyToken(secret, purpose, token, now),
  }
}
