import pg from 'pg'
import type { Logger } from '../log.js'

/** The channel the triggers of watched tables notify, with the table's name as payload (watch-table.ts). */
export const CHANGES_CHANNEL = 'mediactl_changes'

/** What a change feed tells: a watched table changed, or `null` when changes may have been missed. */
export type ChangeListener = (table: string | null) => void

/**
 * Tells this process that rows of watched tables changed, whichever process (or SQL session)
 * changed them: what lets each process cache lookups and drop them on change. Caches serve
 * only while the feed is `live`: a feed that is down (or SQLite, which has none) makes every
 * lookup read the database.
 */
export interface ChangeFeed {
  /** Whether changes reach this process now. */
  readonly live: boolean
  /**
   * The tables and views of the database, each with whether it is watched (its changes are
   * told): read when the feed starts listening, empty while it is not live.
   */
  readonly relations: ReadonlyMap<string, boolean>
  /** Calls `listener` on each change, and with `null` whenever the feed goes down or comes back. */
  subscribe(listener: ChangeListener): void
  /** This process wrote: drop what it cached now, before its own notification comes back. */
  wrote(): void
  close(): Promise<void>
}

/** No feed (SQLite: its reads are in-process, a cache would save nothing): never live. */
export class NoChangeFeed implements ChangeFeed {
  readonly live = false
  readonly relations: ReadonlyMap<string, boolean> = new Map()
  subscribe(): void {}
  wrote(): void {}
  async close(): Promise<void> {}
}

/** The relations of the current schema, each with whether `watchTable` put its trigger on it. */
const RELATIONS_SQL = `select c.relname as name,
    exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = c.relname || '_notify_change') as watched
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f')`

/** Waits before connecting again, doubling from the first to the last. */
const RETRY_MS = { first: 250, last: 10_000 }

/**
 * PostgreSQL: one connection of its own, outside the pool, `LISTEN`ing on `CHANGES_CHANNEL`.
 * Triggers on the watched tables notify at each statement, so every process hears every
 * committed change within the notification latency (milliseconds). When the connection
 * breaks, the feed is not live (caches read through) until it is back and listening again;
 * both moments are announced with `null`, so caches drop what they hold.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private client: pg.Client | undefined
  private readonly listeners: ChangeListener[] = []
  relations: ReadonlyMap<string, boolean> = new Map()
  private retryMs = RETRY_MS.first
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private connected = false
  /** Whether the loss was logged: one line when it goes, one when it is back. */
  private down = false

  constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
    private readonly log: Logger,
  ) {}

  get live(): boolean {
    return this.connected
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener)
  }

  wrote(): void {
    this.announce(null)
  }

  /** Starts listening in the background: booting does not wait for it (caches read through meanwhile). */
  start(): void {
    void this.connect()
  }

  private announce(table: string | null): void {
    for (const listener of this.listeners) listener(table)
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    })
    this.client = client
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) this.announce(message.payload ?? null)
    })
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      const { rows } = await client.query<{ name: string; watched: boolean }>(RELATIONS_SQL)
      this.relations = new Map(rows.map((row) => [row.name, row.watched]))
      // Last: what the connection shows as its query in pg_stat_activity (operators and tests find it so).
      await client.query(`listen ${CHANGES_CHANNEL}`)
    } catch (error) {
      if (!this.down && !this.closed) this.log.warn({ err: error }, 'change feed unavailable; caches read through')
      this.down = true
      this.lost(client)
      return
    }
    if (this.closed || this.client !== client) return void client.end().catch(() => undefined)
    this.connected = true
    this.retryMs = RETRY_MS.first
    if (this.down) this.log.info('change feed back; caches on')
    this.down = false
    // Whatever changed while nobody listened is unknown: start from nothing.
    this.announce(null)
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    const wasLive = this.connected
    this.connected = false
    client.end().catch(() => undefined)
    if (this.closed) return
    if (wasLive) {
      this.log.warn('change feed lost; caches read through until it is back')
      this.down = true
      this.announce(null)
    }
    const delay = this.retryMs
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MS.last)
    this.timer = setTimeout(() => void this.connect(), delay)
    this.timer.unref()
  }

  async close(): Promise<void> {
    this.closed = true
    this.connected = false
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }
}
