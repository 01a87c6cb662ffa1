import pg from 'pg'
import type { Logger } from '../log.js'

/** The channel the triggers of watched tables notify, with the table's name as payload (watch-table.ts). */
export const CHANGES_CHANNEL = 'mediactl_changes'

/** What a change feed tells: a watched table changed, or `null` when changes may have been missed. */
export type ChangeListener = (table: string | null) => void

/**
 * Tells this process that rows of watched tables changed, whichever process (or SQL session)
 * changed them: what lets each process cache lookups and drop them on change. Caches serve
 * only while the feed is `live`: a feed that is down (or none: CLI commands, workers) makes
 * every lookup read the database.
 */
export interface ChangeFeed {
  /** Whether changes reach this process now. */
  readonly live: boolean
  /** Calls `listener` on each change, and with `null` whenever the feed goes down or comes back. */
  subscribe(listener: ChangeListener): void
  /** This process wrote: drop what it cached now, before its own notification comes back. */
  wrote(): void
  /** Starts telling (serving processes only). */
  start(): void
  /**
   * Catches up with the changes it learns only by asking (SQLite): called as each request
   * starts, before anything is read from a cache.
   */
  sync(): void
  close(): Promise<void>
}

/** Waits before connecting again, doubling from the first to the last. */
const RETRY_MS = { first: 250, last: 10_000 }

/**
 * How often the feed asks its connection for an answer. A connection can die without a word
 * (a firewall or NAT dropping it, the server's host gone): TCP keepalive tells after minutes,
 * while the caches would serve what changed meanwhile. A heartbeat unanswered by the next
 * one stops the caches: what they hold is stale by at most about two heartbeats (1 s).
 * PostgreSQL sends a listener's pending notifications before its next answer, so each answer
 * also means every change committed before the heartbeat was heard.
 */
export const HEARTBEAT_MS = 500

/** What the feed's connection is called in `pg_stat_activity` (operators and tests find it so). */
export const FEED_APPLICATION_NAME = 'mediactl change feed'

/**
 * PostgreSQL: one connection of its own, outside the pool, `LISTEN`ing on `CHANGES_CHANNEL`.
 * Triggers on the watched tables notify at each statement, so every process hears every
 * committed change within the notification latency (milliseconds). When the connection
 * breaks, the feed is not live (caches read through) until it is back and listening again;
 * both moments are announced with `null`, so caches drop what they hold. A connection that
 * stops answering (see `HEARTBEAT_MS`) stops the caches at once, and is replaced after the
 * connect timeout.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private client: pg.Client | undefined
  private readonly listeners: ChangeListener[] = []
  private retryMs = RETRY_MS.first
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private connected = false
  /** A heartbeat went unanswered for a whole interval: caches read through until it answers. */
  private stalled = false
  /** When the heartbeat waiting for its answer was sent (0: none waiting). */
  private beatSentAt = 0
  private heartbeat: NodeJS.Timeout | undefined
  /** Whether the loss was logged: one line when it goes, one when it is back. */
  private down = false

  constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
    private readonly log: Logger,
  ) {}

  get live(): boolean {
    return this.connected && !this.stalled
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener)
  }

  wrote(): void {
    this.announce(null)
  }

  /** Notifications come by themselves. */
  sync(): void {}

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
      application_name: FEED_APPLICATION_NAME,
    })
    this.client = client
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) this.announce(message.payload ?? null)
    })
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      await client.query(`listen ${CHANGES_CHANNEL}`)
    } catch (error) {
      if (!this.down && !this.closed) this.log.warn({ err: error }, 'change feed unavailable; caches read through')
      this.down = true
      this.lost(client)
      return
    }
    if (this.closed || this.client !== client) return void client.end().catch(() => undefined)
    this.connected = true
    this.stalled = false
    this.beatSentAt = 0
    this.heartbeat = setInterval(() => this.beat(client), HEARTBEAT_MS)
    this.heartbeat.unref()
    this.retryMs = RETRY_MS.first
    if (this.down) this.log.info('change feed back; caches on')
    this.down = false
    // Whatever changed while nobody listened is unknown: start from nothing.
    this.announce(null)
  }

  /** Sends a heartbeat, unless the last is still unanswered: then the caches stop, and after the connect timeout the connection is replaced. */
  private beat(client: pg.Client): void {
    if (this.client !== client) return
    if (this.beatSentAt) {
      if (!this.stalled) {
        this.stalled = true
        this.log.warn('change feed not answering; caches read through until it does')
        this.announce(null)
      }
      if (Date.now() - this.beatSentAt >= this.connectTimeoutMs) this.lost(client)
      return
    }
    this.beatSentAt = Date.now()
    client.query('select 1').then(
      () => {
        if (this.client !== client) return
        this.beatSentAt = 0
        if (!this.stalled) return
        this.stalled = false
        this.log.info('change feed answering again; caches on')
        // The notifications came before the answer: what the caches read while it stalled stays true.
        this.announce(null)
      },
      () => this.lost(client),
    )
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    clearInterval(this.heartbeat)
    const wasConnected = this.connected
    this.connected = false
    this.stalled = false
    client.end().catch(() => undefined)
    // A connection that stopped answering may never finish ending: its socket goes now.
    ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
    if (this.closed) return
    if (wasConnected) {
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
    clearInterval(this.heartbeat)
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }
}
