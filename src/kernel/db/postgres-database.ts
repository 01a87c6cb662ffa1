import pg from 'pg'

/** The database a PostgreSQL URL names, and the same server's maintenance database to create it from. */
function parts(url: string): { name: string; host: string; maintenance: string } {
  const parsed = new URL(url)
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres'
  const host = `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`
  parsed.pathname = '/postgres'
  return { name, host, maintenance: parsed.toString() }
}

/** PostgreSQL's "database does not exist". */
export const MISSING_DATABASE = '3D000'

/** What a command says when the configured database does not exist (never created implicitly: a typo must not make an empty appliance). */
export function missingDatabaseMessage(url: string): string {
  const { name, host } = parts(url)
  return `the database "${name}" does not exist on ${host}: check database.url (MEDIACTL_DATABASE_URL), or create it (createdb "${name}", or "mediactl init --create-database")`
}

/**
 * Creates the database `url` names unless it exists (`mediactl init --create-database`):
 * connects to the same server's `postgres` database with the same credentials. Answers
 * whether it created it.
 */
export async function createDatabase(url: string): Promise<boolean> {
  const { name, maintenance } = parts(url)
  const client = new pg.Client({ connectionString: maintenance, connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount) return false
    await client.query(`create database "${name.replaceAll('"', '""')}"`)
    return true
  } finally {
    await client.end()
  }
}
