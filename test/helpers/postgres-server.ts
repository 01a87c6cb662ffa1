import { execFile } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from './redis-server.js'
import { waitFor } from './wait.js'

const run = promisify(execFile)

/**
 * The folder of PostgreSQL's server programs (initdb, pg_ctl, pg_isready): Debian's newest
 * /usr/lib/postgresql/<version>/bin, else the one `pg_config --bindir` names; undefined where
 * there is none (the tests that need it skip).
 */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0]) return join(root, versions[0], 'bin')
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir
  }
  return undefined
}

/** The uid and gid of the `postgres` OS user, or undefined without one. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  if (!line) return undefined
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** Whether this machine can run a PostgreSQL cluster of a test's own (programs, and a user to run them as root). */
export function canRunPostgres(): boolean {
  return postgresBinDir() !== undefined && (process.getuid?.() !== 0 || postgresUser() !== undefined)
}

/** Sends `name` to each of `pids`; one that already exited (a backend whose client left) is skipped. */
function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
    }
  }
}

/** A PostgreSQL cluster of a test's own, which the test may stop, freeze and start again. */
export interface OwnPostgres {
  /** The TCP port on 127.0.0.1 (the same after a restart). */
  port: number
  /** The URL of `database` (a database of its own made at start; user postgres, no password). */
  url: string
  /** Stops the server: `immediate` as a crash would (no checkpoint, connections cut), or `fast` (a clean shutdown). */
  stop(mode?: 'immediate' | 'fast'): Promise<void>
  /** Starts it again on the same port and data, once it accepts connections. */
  start(): Promise<void>
  /**
   * Freezes every process of the server (SIGSTOP): connections stay open and nothing answers,
   * as when its host vanishes from the network. `thaw` resumes them.
   */
  freeze(): Promise<void>
  thaw(): Promise<void>
  /** A client of `database`, connected (the caller ends it). */
  client(): Promise<pg.Client>
  /** Stops the server and removes its files. */
  close(): Promise<void>
}

/**
 * Starts a PostgreSQL cluster of the test's own (the shared one is never stopped): initdb in
 * a temporary folder, trust authentication, listening on 127.0.0.1 only on a free port, its
 * Unix socket in that folder, durability off (a test's data). As root, the server programs
 * run as the `postgres` OS user (they refuse root), which owns the folder.
 */
export async function startPostgres(
  database = 'mediactl',
  /**
   * Commits written before they are acknowledged (synchronous_commit on): an immediate stop then loses none, as on a
   * real server. Off by default (a test's data), where a commit acknowledged just before a crash may be undone.
   */
  options: { durableCommits?: boolean } = {},
): Promise<OwnPostgres> {
  const bin = postgresBinDir()
  if (!bin) throw new Error('no PostgreSQL server programs (initdb, pg_ctl) on this machine')
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? postgresUser() : undefined
  if (asRoot && !user) throw new Error('running as root and there is no postgres user to run PostgreSQL as')
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-pg-'))
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const logFile = join(dir, 'server.log')
  const port = await freePort()
  const program = async (name: string, args: string[]): Promise<void> => {
    const [file, argv] = user
      ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]]
      : [join(bin, name), args]
    try {
      await run(file, argv, { cwd: dir, timeout: 60_000 })
    } catch (error) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : ''
      throw new Error(`${name} ${args.join(' ')} failed: ${(error as Error).message}\n${log}`, { cause: error })
    }
  }
  const ready = async (): Promise<boolean> => {
    try {
      await run(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'])
      return true
    } catch {
      return false
    }
  }
  /** The postmaster and every process it started, from /proc. */
  const processes = (): number[] => {
    const pidFile = join(data, 'postmaster.pid')
    if (!existsSync(pidFile)) return []
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // The parent pid is the second field after the command, which is in parentheses.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster
        } catch {
          return false
        }
      })
      .map(Number)
    return [postmaster, ...children]
  }
  let running = false
  const own: OwnPostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop(mode = 'immediate') {
      if (!running) return
      await own.thaw()
      // -w: returns once the server is gone.
      await program('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop'])
      running = false
    },
    async start() {
      await program('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '30', 'start'])
      running = true
      await waitFor(ready, { timeout: 30_000, interval: 50, message: `PostgreSQL on port ${port}` })
    },
    async freeze() {
      signal(processes(), 'SIGSTOP')
    },
    async thaw() {
      signal(processes(), 'SIGCONT')
    },
    async client() {
      const client = new pg.Client({ connectionString: own.url, connectionTimeoutMillis: 5000 })
      await client.connect()
      return client
    },
    async close() {
      try {
        await own.stop('immediate')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
  try {
    await program('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'])
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        '',
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        `synchronous_commit = ${options.durableCommits ? 'on' : 'off'}`,
        'full_page_writes = off',
        'max_connections = 50',
        '',
      ].join('\n'),
    )
    await own.start()
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` })
    await admin.connect()
    await admin.query(`create database ${database}`)
    await admin.end()
  } catch (error) {
    await own.close().catch(() => undefined)
    throw error
  }
  return own
}
