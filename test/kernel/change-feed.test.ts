import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { knex as makeKnex, type Knex } from '@mikro-orm/knex'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresChangeFeed } from '../../src/kernel/cache/change-feed.js'
import { SqliteChangeFeed } from '../../src/kernel/cache/sqlite-change-feed.js'
import { ProcessCache } from '../../src/kernel/cache/process-cache.js'
import { unwatchTable, watchTable } from '../../src/kernel/cache/watch-table.js'
import { freshDatabase } from '../helpers/database.js'
import { recordingLogger } from '../helpers/log.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { waitFor } from '../helpers/wait.js'

describe('a feed not started (CLI commands, workers)', () => {
  it('a cache reads through every time: nothing is kept', async () => {
    const cache = new ProcessCache<number>(new SqliteChangeFeed('/nonexistent/mediactl.sqlite'), { tables: ['users'] })
    let reads = 0
    expect(await cache.get('k', async () => ++reads)).toBe(1)
    expect(await cache.get('k', async () => ++reads)).toBe(2)
    expect(cache.size).toBe(0)
    const calls: string[][] = []
    const load = async (missing: string[]) => (calls.push(missing), new Map(missing.map((key) => [key, 1])))
    await cache.getMany(['a', 'b'], load)
    await cache.getMany(['a', 'b'], load)
    expect(calls).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ])
  })
})

/** SQLite: `PRAGMA data_version` asked as each request starts; any commit by another connection drops everything. */
describe('SQLite change feed', () => {
  let dir: string
  let writer: Database.Database
  let feed: SqliteChangeFeed
  const heard: (string | null)[] = []

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mediactl-feed-'))
    const file = join(dir, 'feed.sqlite')
    writer = new Database(file)
    writer.pragma('journal_mode = WAL')
    writer.exec('create table watched (n integer); create view seen as select n from watched')
    feed = new SqliteChangeFeed(file)
    feed.subscribe((table) => heard.push(table))
    expect(feed.live).toBe(false)
    feed.start()
  })
  afterAll(async () => {
    await feed.close()
    writer.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('is live once started', () => {
    expect(feed.live).toBe(true)
  })

  it('a cache keeps a value until another connection commits, whatever it changed', async () => {
    const cache = new ProcessCache<number>(feed, { tables: ['users'] })
    let reads = 0
    feed.sync()
    await cache.get('k', async () => ++reads)
    feed.sync()
    expect(await cache.get('k', async () => ++reads)).toBe(1)
    heard.length = 0
    writer.prepare('insert into watched values (1)').run()
    // Not before the next request asks.
    expect(await cache.get('k', async () => ++reads)).toBe(1)
    feed.sync()
    expect(heard).toEqual([null])
    expect(await cache.get('k', async () => ++reads)).toBe(2)
    feed.sync()
    expect(heard).toEqual([null])
    // A transaction rolled back commits nothing.
    writer.exec('begin; insert into watched values (2); rollback')
    feed.sync()
    expect(heard).toEqual([null])
    expect(await cache.get('k', async () => ++reads)).toBe(2)
  })

  it("drops everything when told this process wrote, before the commit's version is asked", async () => {
    const cache = new ProcessCache<number>(feed, { tables: ['users'] })
    await cache.get('k', async () => 1)
    feed.wrote()
    expect(await cache.get('k', async () => 2)).toBe(2)
  })
})

/** The feed and the caches against a real PostgreSQL: another session's changes, a lost connection. */
describe.skipIf(!process.env.MEDIACTL_TEST_DATABASE_URL)('PostgreSQL change feed', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>
  let knex: Knex
  let feed: PostgresChangeFeed
  const heard: (string | null)[] = []
  const { logger, lines } = recordingLogger()

  /** A write from another session, as another process's. */
  const elsewhere = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }

  beforeAll(async () => {
    database = await freshDatabase()
    knex = makeKnex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } })
    await knex.schema.createTable('watched', (t) => t.integer('n'))
    await knex.schema.createTable('unwatched', (t) => t.integer('n'))
    await watchTable(knex, 'watched')
    feed = new PostgresChangeFeed(database.url, 5000, logger)
    feed.subscribe((table) => heard.push(table))
    expect(feed.live).toBe(false)
    feed.start()
    await waitFor(() => feed.live, { message: 'the feed to listen' })
  })
  afterAll(async () => {
    await feed?.close()
    await knex?.destroy()
    await database?.drop()
  })

  it('hears each committed change of a watched table, from any session, and nothing of others', async () => {
    heard.length = 0
    await elsewhere('insert into unwatched values (1)')
    await elsewhere('begin; insert into watched values (1); update watched set n = 2; commit')
    await waitFor(() => heard.includes('watched'), { timeout: 1000, message: 'the notification' })
    expect(heard).toEqual(['watched'])
    // Rolled back: nothing to hear.
    await elsewhere('begin; delete from watched; rollback')
    await elsewhere('insert into watched values (3)')
    await waitFor(() => heard.length === 2, { timeout: 1000 })
    expect(heard).toEqual(['watched', 'watched'])
  })

  it('a cache keeps a value until its table changes, in any session', async () => {
    const cache = new ProcessCache<number>(feed, { tables: ['watched'] })
    const count = async () => Number((await knex('watched').count({ n: '*' }))[0]!.n)
    let reads = 0
    const read = () => cache.get('rows', async () => (reads++, count()))
    const first = await read()
    expect(await read()).toBe(first)
    expect(reads).toBe(1)
    await elsewhere('insert into watched values (4)')
    await waitFor(() => cache.size === 0, { timeout: 1000, message: 'the cache to drop' })
    expect(await read()).toBe(first + 1)
    expect(reads).toBe(2)
  })

  it('keeps nothing it read while a change was notified', async () => {
    const cache = new ProcessCache<string>(feed, { tables: ['watched'] })
    const before = heard.length
    const value = await cache.get('k', async () => {
      await elsewhere('insert into watched values (5)')
      await waitFor(() => heard.length > before, { timeout: 1000 })
      return 'read before the change was heard'
    })
    expect(value).toBe('read before the change was heard')
    expect(cache.size).toBe(0)
  })

  it('getMany reads only the keys not kept, in one call, and keeps what it read unless a change came meanwhile', async () => {
    const cache = new ProcessCache<string>(feed, { tables: ['watched'] })
    const calls: string[][] = []
    const load = async (missing: string[]) => {
      calls.push(missing)
      return new Map(missing.map((key) => [key, `value of ${key}`]))
    }
    expect([...(await cache.getMany(['a', 'b'], load))]).toEqual([
      ['a', 'value of a'],
      ['b', 'value of b'],
    ])
    const again = await cache.getMany(['b', 'c', 'a'], load)
    expect(again.get('c')).toBe('value of c')
    expect(calls).toEqual([['a', 'b'], ['c']])
    expect(await cache.getMany(['a', 'b', 'c'], load)).toHaveProperty('size', 3)
    expect(calls).toHaveLength(2)
    // A change notified during the read: the values are answered, not kept.
    const other = new ProcessCache<string>(feed, { tables: ['watched'] })
    const before = heard.length
    await other.getMany(['x'], async (missing) => {
      await elsewhere('insert into watched values (6)')
      await waitFor(() => heard.length > before, { timeout: 1000 })
      return new Map(missing.map((key) => [key, 'read before the change was heard']))
    })
    expect(other.size).toBe(0)
  })

  it('drops everything when told this process wrote', async () => {
    const cache = new ProcessCache<number>(feed, { tables: ['watched'] })
    await cache.get('k', async () => 1)
    expect(cache.size).toBe(1)
    feed.wrote()
    expect(cache.size).toBe(0)
  })

  it('reads through while its connection is lost, says so once, and caches again once back', async () => {
    const cache = new ProcessCache<number>(feed, { tables: ['watched'] })
    await cache.get('k', async () => 1)
    await elsewhere(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and application_name = 'mediactl change feed'`,
    )
    await waitFor(() => !feed.live, { message: 'the feed to be down' })
    expect(cache.size).toBe(0)
    let reads = 0
    await cache.get('k', async () => ++reads)
    await cache.get('k', async () => ++reads)
    expect(reads).toBe(2)
    await waitFor(() => feed.live, { message: 'the feed to be back' })
    await cache.get('k', async () => ++reads)
    await cache.get('k', async () => ++reads)
    expect(reads).toBe(3)
    const messages = lines.map((line) => line.msg)
    expect(messages.filter((m) => m === 'change feed lost; caches read through until it is back')).toHaveLength(1)
    expect(messages.filter((m) => m === 'change feed back; caches on')).toHaveLength(1)
  })

  type Proxied = { proxy: Awaited<ReturnType<typeof startTcpProxy>>; feed: PostgresChangeFeed; said: { msg: string }[] }
  /** Runs `work` with a listening feed of its own whose connections go through a TCP proxy the test can stall. */
  async function throughProxy(connectTimeoutMs: number, work: (proxied: Proxied) => Promise<void>): Promise<void> {
    const proxy = await startTcpProxy(Number(new URL(database.url).port || 5432))
    const url = new URL(database.url)
    url.port = String(proxy.port)
    const { logger: feedLogger, lines: said } = recordingLogger()
    const proxied = new PostgresChangeFeed(url.toString(), connectTimeoutMs, feedLogger)
    try {
      proxied.start()
      await waitFor(() => proxied.live, { message: 'the feed to listen' })
      await work({ proxy, feed: proxied, said })
    } finally {
      await proxied.close()
      await proxy.close()
    }
  }

  it('a connection that stops answering without a word stops the caches within two heartbeats, and is replaced', async () => {
    // A link dropped by a firewall: the socket stays open, nothing comes back; TCP would say so after minutes.
    await throughProxy(2000, async ({ proxy, feed: stalling, said }) => {
      const cache = new ProcessCache<number>(stalling, { tables: ['watched'] })
      await cache.get('k', async () => 1)
      expect(await cache.get('k', async () => 2)).toBe(1)
      proxy.stallOpen()
      // Its notification never arrives: the cache must stop serving 1 on its own.
      await elsewhere('insert into watched values (7)')
      await waitFor(() => !stalling.live, {
        timeout: 3000,
        interval: 10,
        message: 'the stalled feed to stop the caches',
      })
      expect(cache.size).toBe(0)
      expect(await cache.get('k', async () => 3)).toBe(3)
      expect(await cache.get('k', async () => 4)).toBe(4)
      // After the connect timeout a new connection (the proxy lets new ones through) takes over.
      await waitFor(() => stalling.live, { timeout: 10_000, message: 'a new connection to listen' })
      expect(await cache.get('k', async () => 5)).toBe(5)
      expect(await cache.get('k', async () => 6)).toBe(5)
      await elsewhere('insert into watched values (8)')
      await waitFor(async () => (await cache.get('k', async () => 7)) === 7, { timeout: 1000 })
      expect(said.map((line) => line.msg)).toEqual([
        'change feed not answering; caches read through until it does',
        'change feed lost; caches read through until it is back',
        'change feed back; caches on',
      ])
    })
  })

  it('a connection only slow stops the caches while it does not answer, and serves again once it does', async () => {
    await throughProxy(60_000, async ({ proxy, feed: slow, said }) => {
      const told: (string | null)[] = []
      slow.subscribe((table) => told.push(table))
      const cache = new ProcessCache<number>(slow, { tables: ['watched'] })
      await cache.get('k', async () => 1)
      proxy.stallOpen()
      await elsewhere('insert into watched values (9)')
      await waitFor(() => !slow.live, { timeout: 3000, interval: 10, message: 'the slow feed to stop the caches' })
      expect(await cache.get('k', async () => 2)).toBe(2)
      told.length = 0
      proxy.resumeOpen()
      await waitFor(() => slow.live && told.includes('watched'), { timeout: 3000, message: 'the feed to answer again' })
      // The same connection, which delivers the change it held; coming back, the caches start from nothing.
      expect(told).toContain(null)
      expect(await cache.get('k', async () => 3)).toBe(3)
      expect(await cache.get('k', async () => 4)).toBe(3)
      expect(said.map((line) => line.msg)).toEqual([
        'change feed not answering; caches read through until it does',
        'change feed answering again; caches on',
      ])
    })
  })

  it('a migration down removes the trigger: changes are no longer heard', async () => {
    await unwatchTable(knex, 'watched')
    const before = heard.length
    await elsewhere('insert into watched values (6)')
    await elsewhere('insert into unwatched values (6)')
    // The feed still answers: a notification sent now on the channel is heard, the insert before it was not.
    await elsewhere(`select pg_notify('mediactl_changes', 'probe')`)
    await waitFor(() => heard.length > before, { timeout: 1000 })
    expect(heard.slice(before)).toEqual(['probe'])
  })
})
