import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESOURCE_VIEWS } from '../../../plugins/resources/index.js'
import { ViewCounter } from '../../../plugins/resources/view-counter.js'
import type { Kernel } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { TEST_PG_URL } from '../../helpers/database.js'
import { rawRequest } from '../../helpers/digest-client.js'
import { bootOn } from '../../helpers/kernel.js'
import { recordingLogger } from '../../helpers/log.js'
import { waitFor } from '../../helpers/wait.js'
import { browse, configOf, viewsOf } from '../player/player.helpers.js'
import { makePlace, published, uploadDocument } from './resources.helpers.js'

/**
 * The views of plays, counted per serving process and written in batches
 * (plugins/resources/view-counter.ts): through the player's route they reach resource info
 * after the next write; many plays of one interval take one statement per distinct count, in
 * one transaction (one notification on PostgreSQL); a failed write keeps the counts until the
 * database is back; a graceful stop writes what is pending; `views_flush_ms: 0` writes at once.
 */
describe('views counted per process, written in batches', () => {
  let a: TestApp
  /** Three visible resources (documents: nothing to encode), with their ids. */
  let slugs: string[]
  const ids: number[] = []
  /** A's database, for the other processes. */
  let database: string
  const others: { kernel: Kernel; dir: string }[] = []
  const UPDATE = /^\s*update resources set views = views \+/i
  const silent = recordingLogger().logger

  beforeAll(async () => {
    a = await startApp({ config: { resources: { views_flush_ms: 100 } } })
    const place = await makePlace(a.client, 'Counted')
    const file = await uploadDocument(a.client)
    slugs = []
    for (const title of ['One', 'Two', 'Three']) {
      slugs.push(await published(a.client, place.stream, { file, title, visibility: 'visible' }))
    }
    for (const slug of slugs) {
      const rows = await a.kernel.em().execute<{ id: number }[]>('select id from resources where slug = ?', [slug])
      ids.push(Number(rows[0]!.id))
    }
    database = a.kernel.config.database.url || `sqlite://${join(a.dataDir, 'mediactl.sqlite')}`
  })
  afterAll(async () => {
    for (const { kernel, dir } of others) {
      await kernel.close()
      rmSync(dir, { recursive: true, force: true })
    }
    await a?.close()
  })

  /** Another serving process on A's database, as `serve --processes 2` runs, with its own `views_flush_ms`. */
  async function processOn(flushMs: number): Promise<{ kernel: Kernel; url: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'mediactl-views-'))
    const kernel = await bootOn(dir, {
      overrides: {
        database: { url: database },
        auth: { secret: 'another-process' },
        resources: { views_flush_ms: flushMs },
      },
    })
    others.push({ kernel, dir })
    const { url } = await kernel.listen(0, '127.0.0.1')
    return { kernel, url }
  }

  /** One playback session of `slug` on the server at `url`, as the page does: a page load, then its view token posted. */
  async function play(url: string, slug: string): Promise<void> {
    const page = await browse(`${url}/player/${slug}`)
    expect(page.status, page.body.slice(0, 300)).toBe(200)
    const res = await rawRequest(configOf(page.body).views as string, 'POST')
    expect(res.status, res.body).toBe(204)
  }

  /** `times` plays of each slug, all at once. */
  const plays = (url: string, times: Record<string, number>): Promise<void[]> =>
    Promise.all(Object.entries(times).flatMap(([slug, n]) => Array.from({ length: n }, () => play(url, slug))))

  /** The `views` column as committed now (no cache in between). */
  async function storedViews(id: number): Promise<number> {
    const rows = await a.kernel.em().execute<{ views: number }[]>('select views from resources where id = ?', [id])
    return Number(rows[0]!.views)
  }

  /** Waits until A's resource info shows `expected` views for each slug. */
  async function showsViews(expected: Record<string, number>): Promise<void> {
    const seen: Record<string, number> = {}
    await waitFor(
      async () => {
        for (const slug of Object.keys(expected)) seen[slug] = await viewsOf(a, slug)
        return Object.entries(expected).every(([slug, n]) => seen[slug] === n)
      },
      { message: () => `views ${JSON.stringify(expected)}, seen ${JSON.stringify(seen)}` },
    )
  }

  /** The current views shown of every slug. */
  async function viewsNow(): Promise<Record<string, number>> {
    return Object.fromEntries(await Promise.all(slugs.map(async (slug) => [slug, await viewsOf(a, slug)] as const)))
  }

  it('plays through the player route reach resource info after the next write', async () => {
    const before = await viewsNow()
    await plays(a.url, { [slugs[0]!]: 2, [slugs[1]!]: 1 })
    await showsViews({ [slugs[0]!]: before[slugs[0]!]! + 2, [slugs[1]!]: before[slugs[1]!]! + 1 })
  })

  it('many plays of several resources in one interval: one statement per distinct count, in one transaction', async () => {
    const b = await processOn(600_000)
    const counter = b.kernel.exposed(RESOURCE_VIEWS)
    const statements: string[] = []
    const onQuery = (query: { sql?: string }): void => {
      if (UPDATE.test(query.sql ?? '')) statements.push(query.sql!)
    }
    const knex = b.kernel.em().getKnex()
    knex.on('query', onQuery)
    const listener = TEST_PG_URL ? new pg.Client({ connectionString: database }) : undefined
    const notified: string[] = []
    try {
      if (listener) {
        await listener.connect()
        listener.on('notification', (message) => notified.push(`${message.channel}:${message.payload}`))
        await listener.query('listen mediactl_changes')
        await listener.query('listen view_counter_test')
      }
      const before = await viewsNow()
      await plays(b.url, { [slugs[0]!]: 4, [slugs[1]!]: 4, [slugs[2]!]: 1 })
      // Counted in B's memory only, until its next write.
      expect(counter.unwritten).toBe(9)
      expect(statements).toEqual([])
      expect(await Promise.all(ids.map(storedViews))).toEqual(slugs.map((slug) => before[slug]))

      await counter.flush()
      expect(counter.unwritten).toBe(0)
      // Two counts (4 and 1): two statements, whatever the number of plays.
      expect(statements).toHaveLength(2)
      await showsViews({
        [slugs[0]!]: before[slugs[0]!]! + 4,
        [slugs[1]!]: before[slugs[1]!]! + 4,
        [slugs[2]!]: before[slugs[2]!]! + 1,
      })
      if (listener) {
        // Notifications arrive in commit order: once this one is seen, every earlier one is.
        await listener.query(`select pg_notify('view_counter_test', 'done')`)
        await waitFor(() => notified.includes('view_counter_test:done'), { message: 'the marker notification' })
        expect(notified.filter((n) => n === 'mediactl_changes:resources')).toHaveLength(1)
      }
    } finally {
      knex.off('query', onQuery)
      await listener?.end()
    }
  })

  it('a graceful stop writes the views counted since the last write', async () => {
    const b = await processOn(600_000)
    const before = await viewsNow()
    await plays(b.url, { [slugs[2]!]: 3 })
    expect(b.kernel.exposed(RESOURCE_VIEWS).unwritten).toBe(3)
    await b.kernel.close()
    await showsViews({ [slugs[2]!]: before[slugs[2]!]! + 3 })
  })

  it('a write that fails keeps the counts (one warning), and writes them once the database is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mediactl-views-'))
    const kernel = await bootOn(dir, { overrides: { database: { url: database } } })
    others.push({ kernel, dir })
    const { logger, lines } = recordingLogger()
    const counter = new ViewCounter({ em: () => kernel.em(), log: logger, flushMs: 600_000 })
    const [first, second] = [ids[0]!, ids[1]!]
    const before = [await storedViews(first), await storedViews(second)]
    const knex = kernel.em().getKnex()
    let down = false
    try {
      await counter.add(first)
      await counter.add(first)
      await counter.add(second)
      // The process's connections are gone: every statement fails.
      await knex.destroy()
      down = true
      await counter.flush()
      await counter.add(second)
      await counter.flush()
      expect(counter.unwritten).toBe(4)
      expect([await storedViews(first), await storedViews(second)]).toEqual(before)
      const warnings = lines.filter((line) => line.msg === 'views not written; kept for the next try')
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatchObject({ level: 40, views: 3 })

      knex.initialize()
      down = false
      await counter.flush()
      expect(counter.unwritten).toBe(0)
      expect([await storedViews(first), await storedViews(second)]).toEqual([before[0]! + 2, before[1]! + 2])
      expect(lines.filter((line) => line.msg === 'views are written again')).toHaveLength(1)
    } finally {
      if (down) knex.initialize()
      await counter.stop()
    }
  })

  it('flushes at once neither lose nor count twice', async () => {
    const counter = new ViewCounter({ em: () => a.kernel.em(), log: silent, flushMs: 600_000 })
    const before = await Promise.all(ids.map(storedViews))
    const work: Promise<void>[] = []
    for (let i = 0; i < 30; i++) {
      work.push(counter.add(ids[i % 3]!))
      if (i % 7 === 0) work.push(counter.flush())
    }
    await Promise.all([...work, counter.flush(), counter.flush()])
    await counter.stop()
    expect(counter.unwritten).toBe(0)
    expect(await Promise.all(ids.map(storedViews))).toEqual(before.map((n) => n + 10))
  })

  it('a view counted after the stop (a request that outlived it) is written at once, not left for a tick', async () => {
    const counter = new ViewCounter({ em: () => a.kernel.em(), log: silent, flushMs: 600_000 })
    await counter.stop()
    const before = await storedViews(ids[0]!)
    await counter.add(ids[0]!)
    expect(await storedViews(ids[0]!)).toBe(before + 1)
    expect(counter.unwritten).toBe(0)
  })

  it('views_flush_ms 0: each view is written before the play is answered', async () => {
    const b = await processOn(0)
    const before = await storedViews(ids[1]!)
    await play(b.url, slugs[1]!)
    expect(await storedViews(ids[1]!)).toBe(before + 1)
    expect(b.kernel.exposed(RESOURCE_VIEWS).unwritten).toBe(0)
  })
})
