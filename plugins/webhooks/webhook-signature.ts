import { createHmac, randomBytes } from 'node:crypto'

/** What every secret starts with (the Standard Webhooks convention): the rest is the key, in base64. */
export const SECRET_PREFIX = 'whsec_'

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64')

/** A new event id (`webhook-id`): `msg_` + 22 random URL-safe characters. */
export const newEventId = (): string => 'msg_' + randomBytes(16).toString('base64url')

/**
 * The Standard Webhooks signature of one attempt: `v1,` + base64 of the HMAC-SHA256, keyed with
 * the secret's bytes after `whsec_`, of `<id>.<timestamp>.<body>`.
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
}

/**
 * The headers of one attempt: `webhook-signature` holds one signature per secret, space-separated
 * (the current one first; during a rotation's overlap the previous one too).
 */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  }
}
