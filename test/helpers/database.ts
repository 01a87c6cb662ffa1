import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The PostgreSQL server tests use when MEDIACTL_TEST_DATABASE_URL is set. */
export const TEST_PG_URL = process.env.MEDIACTL_TEST_DATABASE_URL

/**
 * A database URL for one test app: '' (SQLite in the app's data dir) unless
 * MEDIACTL_TEST_DATABASE_URL is set, in which case a fresh PostgreSQL database is created
 * and `drop` removes it.
 */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_PG_URL) return { url: '', drop: async () => undefined }
  const name = `mediactl_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_PG_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(TEST_PG_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_PG_URL })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}
