import { createHash } from 'node:crypto'
import type { Reader, Row } from '../../src/kernel/index.js'

/** Characters of a recorder code (`randomToken`). */
export const CODE_LENGTH = 32
const CODE_SHAPE = /^[A-Za-z0-9]{32}$/

/** What is known of a recorder code, without using it. */
export interface RecorderCodeView {
  userId: number
  platformId: number
  username: string
  createdAt: Date
  expiresAt: Date
  /** null while unused. */
  usedAt: Date | null
}

/** Whether a string could be a recorder code at all: anything else is unknown without asking the database. */
export const isCodeShaped = (code: string): boolean => CODE_SHAPE.test(code)

/** The stored form of a code (recorder-code.entity.ts says why). */
export const codeHash = (code: string): string => createHash('sha256').update(code).digest('hex')

/** The code row with its user's platform and name, by hash. */
export const CODE_SQL = `select c.user_id, c.created_at, c.expires_at, c.used_at, u.platform_id, u.username
  from recorder_codes c join users u on u.id = c.user_id where c.code_hash = ?`

// SQLite answers datetimes as epoch milliseconds, PostgreSQL as Date objects.
function toDate(value: unknown): Date {
  if (value instanceof Date) return value
  if (typeof value === 'number') return new Date(value)
  const text = String(value)
  return new Date(/^\d+$/.test(text) ? Number(text) : text)
}

/** A row of `CODE_SQL` as a view. */
export function codeView(row: Row): RecorderCodeView {
  return {
    userId: Number(row.user_id),
    platformId: Number(row.platform_id),
    username: String(row.username),
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    usedAt: row.used_at === null || row.used_at === undefined ? null : toDate(row.used_at),
  }
}

/**
 * Reads a recorder code without using it (committed data), or undefined when there is no
 * such code. Whether it may still be used is `usedAt === null && expiresAt > now`; only
 * `consumeRecorderCode` decides that safely under concurrency.
 */
export async function peekRecorderCode(reader: Reader, code: string): Promise<RecorderCodeView | undefined> {
  if (!isCodeShaped(code)) return undefined
  const row = await reader.one(CODE_SQL, [codeHash(code)])
  return row && codeView(row)
}
