import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A random token of `length` characters from [A-Za-z0-9], unbiased. */
export function randomToken(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: rejecting bytes above keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]
    }
  }
  return out
}

/** MD5 as hex (Digest's hashes). One-shot `hash`: half the cost of `createHash` on every request. */
export function md5Hex(value: string): string {
  return hash('md5', value, 'hex')
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  if (left.length !== right.length) {
    // Still spend the comparison so a length mismatch is not faster to detect.
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
