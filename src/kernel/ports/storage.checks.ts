import { Readable } from 'node:stream'
import { type ByteRange, STORAGE_KEY, StorageKeyError } from './storage.port.js'

/** Longest storage key, in characters (see STORAGE_KEY). */
export const STORAGE_KEY_MAX = 512

/** Whether `key` is a valid storage key (STORAGE_KEY, at most STORAGE_KEY_MAX characters). */
export function isStorageKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= STORAGE_KEY_MAX && STORAGE_KEY.test(key)
}

/** Throws StorageKeyError unless `key` is a valid storage key. Every backend calls it first. */
export function checkStorageKey(key: unknown): asserts key is string {
  if (!isStorageKey(key)) throw new StorageKeyError(`invalid storage key ${quote(key)}`)
}

/** Throws StorageKeyError unless `prefix` is empty or a valid key followed by `/` (what `list` takes). */
export function checkStoragePrefix(prefix: unknown): asserts prefix is string {
  if (prefix === '') return
  if (typeof prefix !== 'string' || !prefix.endsWith('/') || !isStorageKey(prefix.slice(0, -1))) {
    throw new StorageKeyError(`invalid storage prefix ${quote(prefix)}: empty, or a storage key followed by "/"`)
  }
}

/** Throws RangeError unless `range` is absent or whole bytes with 0 <= start <= end (a caller's mistake). */
export function checkByteRange(range: ByteRange | undefined): void {
  if (range === undefined) return
  const { start, end } = range
  if (!Number.isSafeInteger(start) || start < 0 || (end !== undefined && (!Number.isSafeInteger(end) || end < start))) {
    throw new RangeError(`invalid byte range ${JSON.stringify(range)}: whole bytes with 0 <= start <= end`)
  }
}

/** Throws RangeError unless `maxBytes` is absent or a whole number of bytes >= 0. */
export function checkMaxBytes(maxBytes: number | undefined): void {
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
    throw new RangeError(`invalid maxBytes ${maxBytes}: a whole number of bytes >= 0`)
  }
}

/** Throws RangeError unless a signed URL lifetime is a whole number of seconds > 0. */
export function checkExpiry(expiresInSeconds: number): void {
  if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds <= 0) {
    throw new RangeError(`invalid signed URL lifetime ${expiresInSeconds}: whole seconds > 0`)
  }
}

/** A stream of no bytes: what a range starting at or after the end of an object reads. */
export function emptyStream(): Readable {
  return new Readable({
    read() {
      this.push(null)
    },
  })
}

/** The value for an error message: quoted and cut short, since a bad key may be anything. */
function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value)
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
