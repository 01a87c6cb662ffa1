import Database from 'better-sqlite3'
import type { ChangeFeed, ChangeListener } from './change-feed.js'

/**
 * SQLite: `PRAGMA data_version` on a connection of its own moves whenever another connection
 * commits to the file: this process's ORM connection, a CLI command, a worker, another serving
 * process. Asked as each request starts (`sync`, a microsecond), it tells the caches to drop
 * everything when anything was committed since the last request: exact, with no trigger and
 * no listener, at the price of dropping all on any write (SQLite installations write little).
 * The file must exist and be migrated: serving processes start it after their checks.
 */
export class SqliteChangeFeed implements ChangeFeed {
  private db: Database.Database | undefined
  private version: Database.Statement | undefined
  private last: unknown
  private readonly listeners: ChangeListener[] = []

  constructor(private readonly file: string) {}

  get live(): boolean {
    return this.db !== undefined
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener)
  }

  wrote(): void {
    this.announce(null)
  }

  start(): void {
    const db = new Database(this.file, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 5000')
    this.version = db.prepare('pragma data_version').pluck()
    this.last = this.version.get()
    this.db = db
    this.announce(null)
  }

  sync(): void {
    let version: unknown
    try {
      version = this.version?.get()
    } catch {
      // Unreadable now (a busy or damaged file): whatever changed is unknown; the requests will say why.
      version = Symbol('unknown')
    }
    if (version === this.last) return
    this.last = version
    this.announce(null)
  }

  async close(): Promise<void> {
    this.db?.close()
    this.db = undefined
    this.version = undefined
  }

  private announce(table: string | null): void {
    for (const listener of this.listeners) listener(table)
  }
}
