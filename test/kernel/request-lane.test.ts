import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestLane } from '../../src/kernel/cache/request-lane.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { TEST_PG_URL } from '../helpers/database.js'
import { publishingDataOn } from '../plugins/resources/publishing-data.helpers.js'
import { waitFor } from '../helpers/wait.js'

/** A promise and its resolver, to hold a statement open until the test lets it end. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('a request lane', () => {
  it('runs the statements started together one after the other, in the order they were started', async () => {
    const events: string[] = []
    const first = gate()
    const statement = (name: string, wait?: Promise<void>) => async () => {
      events.push(`${name} starts`)
      await wait
      events.push(`${name} ends`)
      return name
    }
    const all = requestLane.run(() =>
      Promise.all([
        requestLane.through(statement('a', first.opened)),
        requestLane.through(statement('b')),
        requestLane.through(statement('c')),
      ]),
    )
    await waitFor(() => events.length > 0, { message: 'a to start' })
    // b waits for a, which waits for the gate (run side by side, b and c would have started with a).
    expect(events).toEqual(['a starts'])
    first.open()
    expect(await all).toEqual(['a', 'b', 'c'])
    expect(events).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends'])
  })

  it('goes on after a statement that fails, which fails alone', async () => {
    const results = await requestLane.run(() =>
      Promise.allSettled([
        requestLane.through(() => Promise.reject(new Error('no such table'))),
        requestLane.through(() => Promise.resolve('next')),
      ]),
    )
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { message: 'no such table' } })
    expect(results[1]).toEqual({ status: 'fulfilled', value: 'next' })
  })

  it('keeps requests apart (each has its own lane) and leaves statements outside a request alone', async () => {
    const held = gate()
    let started = 0
    const statement = () => async () => {
      started++
      await held.opened
    }
    const one = requestLane.run(() => requestLane.through(statement()))
    const other = requestLane.run(() => requestLane.through(statement()))
    const outside = Promise.all([requestLane.through(statement()), requestLane.through(statement())])
    // Each request's first statement and both outside one start while the gate is shut.
    await waitFor(() => started === 4, { timeout: 1000, message: 'four statements to start at once' })
    held.open()
    await Promise.all([one, other, outside])
  })
})

/**
 * On PostgreSQL each statement of the reader takes a pool connection: reads a handler starts
 * together would hold several. Measured from the pool itself (the most it lent at once) while
 * one request at a time is answered with every cache cold.
 */
describe.skipIf(!TEST_PG_URL)('one pool connection per request at most (PostgreSQL)', () => {
  let app: TestApp
  let data: { media: string; stream: string; resource: string; fileSlug: string }

  interface TarnPool {
    on(event: 'acquireRequest' | 'release', listener: () => void): void
  }
  const pool = (): TarnPool => app.kernel.em().getKnex().client.pool as unknown as TarnPool
  /** Connections asked for and not given back yet (lent or waited for), and the most at once. */
  let wanted = 0
  let peak = 0

  /** The most connections wanted at once (held or waited for) while `work` ran: what the pool is warm with does not matter. */
  async function peakOf(work: () => Promise<unknown>): Promise<number> {
    peak = wanted
    await work()
    return peak
  }
  /** Any write through the kernel tells its change feed that it wrote: every process cache drops. */
  const coldCaches = () => app.kernel.em().getKnex().raw('delete from resources where id < 0')

  beforeAll(async () => {
    // No poll of the jobs table in the background while a request is measured: it would take a connection too.
    app = await startApp({
      config: {
        'queue-inline': { poll_interval: 60 },
        jobs: { reconcile_interval: 3600 },
      },
    })
    data = await publishingDataOn(app, 60)
    pool().on('acquireRequest', () => (peak = Math.max(peak, ++wanted)))
    pool().on('release', () => wanted--)
  })
  afterAll(async () => app?.close())

  it('the measure sees reads started together outside a request take a connection each', async () => {
    const reader = app.kernel.services.reader
    const reads = () => Promise.all([1, 2, 3].map((n) => reader.all('select ? as n', [n])))
    expect(await peakOf(reads)).toBe(3)
  })

  /** Each request, and what its answer says once its reads are done. */
  const requests = (): [string, Record<string, string>, number, string][] => [
    [`/resource/${data.resource}`, {}, 200, '<resource '],
    [`/stream/${data.stream}/resources`, {}, 200, '<resources '],
    [`/stream/${data.stream}/resources`, { Range: 'entities=40-49' }, 200, '<resources '],
    // The media's channels and the file's renditions, read together to decide: this data offers no source.
    [`/resource/${data.resource}/source`, {}, 404, 'offers no source'],
    [`/file/${data.fileSlug}`, {}, 200, '<file '],
    ['/platform/default', {}, 200, '<platform '],
    ['/user/admin', {}, 200, '<user '],
  ]

  it('resource info, pages, media, file, platform and user info each want one connection at a time', async () => {
    for (const [path, headers, expected, says] of requests()) {
      await coldCaches()
      let answer = { status: 0, body: '' }
      const held = await peakOf(async () => (answer = await app.client.get(path, { headers })))
      expect(answer.status, path).toBe(expected)
      expect(answer.body, path).toContain(says)
      expect(held, path).toBe(1)
    }
  })
})
