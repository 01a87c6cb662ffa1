import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { JobContext, JobHandler, JobRecord, QueuePort, StartOptions } from '../../src/kernel/index.js'

/** A backend ready for the suite, and how to tidy up after it. */
export interface QueueUnderTest {
  /** A queue on an empty store. */
  queue: QueuePort
  /** Another queue on the same store, as another process would have it (its own connections). */
  another(): Promise<QueuePort>
  /** Milliseconds a lease lasts: a run that a stopped process left behind is taken back within about this long. */
  leaseMs: number
  cleanup(): Promise<void>
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check` answers something truthy (polling), or fails naming `what`. */
async function until<T>(what: string, check: () => Promise<T> | T, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** A deferred promise: settle it from the test. */
function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** Resolves when `signal` aborts; rejects with its reason (what a well-behaved handler does). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error)
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })
  })
}

/**
 * The QueuePort contract (src/kernel/ports/queue.port.ts) as tests, through the port only:
 * every queue backend runs this same suite. Each test uses its own job types, so the jobs
 * other tests left in the store never run here.
 */
export function queueConformance(name: string, makeQueue: () => Promise<QueueUnderTest>): void {
  describe(`queue port conformance: ${name}`, () => {
    let sut: QueueUnderTest
    let queue: QueuePort
    /** Queues started by the running test, stopped after it. */
    const started: QueuePort[] = []
    let typeCounter = 0
    /** A job type no other test uses. */
    const freshType = (): string => `conformance.t${++typeCounter}`

    const options = (over: Partial<StartOptions> = {}): StartOptions => ({
      concurrency: 2,
      timeLimitMs: 30_000,
      backoffMs: 100,
      ...over,
    })
    const start = async (q: QueuePort, handlers: Record<string, JobHandler>, over?: Partial<StartOptions>) => {
      await q.start(new Map(Object.entries(handlers)), options(over))
      started.push(q)
    }
    const stateOf = async (id: string, q = queue): Promise<JobRecord> => (await q.get(id))!
    const untilState = (job: JobRecord, state: JobRecord['state'], timeoutMs?: number): Promise<JobRecord> =>
      until(
        `job ${job.id} ${state}`,
        async () => {
          const now = await stateOf(job.id)
          return now.state === state ? now : null
        },
        timeoutMs,
      )

    beforeAll(async () => {
      sut = await makeQueue()
      queue = sut.queue
    })
    afterEach(async () => {
      for (const q of started.splice(0)) await q.stop({ graceMs: 1000 })
    })
    afterAll(async () => {
      await sut?.cleanup()
    })

    describe('enqueue, get, list', () => {
      it('stores a waiting job with its payload; get and list show it', async () => {
        const type = freshType()
        const before = Date.now()
        const job = await queue.enqueue(type, { fileId: 42, name: 'clip.mp4', nested: { a: [1, 2] } })
        expect(job).toMatchObject({
          type,
          payload: { fileId: 42, name: 'clip.mp4', nested: { a: [1, 2] } },
          state: 'waiting',
          attempts: 0,
          maxAttempts: 3,
          progress: 0,
          lastError: null,
          key: null,
        })
        expect(typeof job.id).toBe('string')
        expect(job.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
        expect(job.runAfter.getTime()).toBeLessThanOrEqual(Date.now() + 1000)
        expect(await queue.get(job.id)).toEqual(job)
        expect((await queue.list()).find((j) => j.id === job.id)).toEqual(job)
      })

      it('keeps the maxAttempts asked for', async () => {
        const job = await queue.enqueue(freshType(), {}, { maxAttempts: 7 })
        expect(job.maxAttempts).toBe(7)
        expect((await queue.get(job.id))!.maxAttempts).toBe(7)
      })

      it('answers null for an unknown id', async () => {
        expect(await queue.get('999999999')).toBeNull()
        expect(await queue.get('not-an-id')).toBeNull()
      })

      it('lists newest first, by state, at most limit', async () => {
        const type = freshType()
        const a = await queue.enqueue(type, { n: 1 })
        const b = await queue.enqueue(type, { n: 2 })
        const c = await queue.enqueue(type, { n: 3 })
        const all = (await queue.list()).filter((j) => j.type === type).map((j) => j.id)
        expect(all).toEqual([c.id, b.id, a.id])
        expect((await queue.list({ limit: 2 })).length).toBe(2)
        const waiting = await queue.list({ state: 'waiting', limit: 1000 })
        expect(waiting.every((j) => j.state === 'waiting')).toBe(true)
        expect(waiting.map((j) => j.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id]))
        expect((await queue.list({ state: 'succeeded', limit: 1000 })).some((j) => j.type === type)).toBe(false)
      })
    })

    describe('running', () => {
      it('runs a job once, with its payload and attempt 1; it ends succeeded at 100', async () => {
        const type = freshType()
        const runs: JobContext[] = []
        await start(queue, { [type]: async (job) => void runs.push(job) })
        const job = await queue.enqueue(type, { fileId: 'f1' })
        const done = await untilState(job, 'succeeded')
        expect(done).toMatchObject({ attempts: 1, progress: 100, lastError: null })
        expect(runs).toHaveLength(1)
        expect(runs[0]).toMatchObject({ id: job.id, type, payload: { fileId: 'f1' }, attempt: 1 })
        expect(runs[0]!.signal.aborted).toBe(false)
        await sleep(300)
        expect(runs).toHaveLength(1)
      })

      it('leaves jobs of types it was not given waiting', async () => {
        const known = freshType()
        const unknown = freshType()
        await start(queue, { [known]: async () => undefined })
        const other = await queue.enqueue(unknown, {})
        const mine = await queue.enqueue(known, {})
        await untilState(mine, 'succeeded')
        await sleep(300)
        expect((await stateOf(other.id)).state).toBe('waiting')
      })

      it('records progress, never lower within a run', async () => {
        const type = freshType()
        const reported = deferred()
        const finish = deferred()
        await start(queue, {
          [type]: async (job) => {
            await job.progress(10)
            await job.progress(40)
            await job.progress(20)
            reported.resolve()
            await finish.promise
            await job.progress(70)
            await job.progress(150)
          },
        })
        const job = await queue.enqueue(type, {})
        await reported.promise
        const samples: number[] = []
        const seen = await until('progress 40 stored', async () => {
          const now = await stateOf(job.id)
          samples.push(now.progress)
          return now.progress >= 40 ? now : null
        })
        expect(seen.state).toBe('running')
        expect(seen.progress).toBe(40)
        await sleep(700)
        samples.push((await stateOf(job.id)).progress)
        finish.resolve()
        await untilState(job, 'succeeded')
        samples.push((await stateOf(job.id)).progress)
        for (let i = 1; i < samples.length; i++) expect(samples[i]).toBeGreaterThanOrEqual(samples[i - 1]!)
        expect(samples.at(-2)).toBe(40)
        expect(samples.at(-1)).toBe(100)
      })

      it('retries a failed run after a backoff that doubles, then succeeds', async () => {
        const type = freshType()
        const starts: number[] = []
        await start(
          queue,
          {
            [type]: async (job) => {
              starts.push(Date.now())
              if (job.attempt < 3) throw new Error(`boom ${job.attempt}`)
            },
          },
          { backoffMs: 200 },
        )
        const job = await queue.enqueue(type, {})
        const retrying = await until('first retry pending', async () => {
          const now = await stateOf(job.id)
          return now.attempts === 1 && now.state === 'waiting' ? now : null
        })
        expect(retrying.lastError).toBe('boom 1')
        expect(retrying.runAfter.getTime()).toBeGreaterThan(starts[0]!)
        const done = await untilState(job, 'succeeded')
        expect(done).toMatchObject({ attempts: 3, lastError: null, progress: 100 })
        expect(starts).toHaveLength(3)
        // 200 ms, then 400 ms (a few ms of clock rounding allowed).
        expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(190)
        expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(390)
      })

      it('stays failed with the last error once maxAttempts runs failed', async () => {
        const type = freshType()
        let runs = 0
        await start(
          queue,
          {
            [type]: async (job) => {
              runs++
              throw new Error(`boom ${job.attempt}`)
            },
          },
          { backoffMs: 20 },
        )
        const job = await queue.enqueue(type, {}, { maxAttempts: 2 })
        const failed = await untilState(job, 'failed')
        expect(failed).toMatchObject({ attempts: 2, maxAttempts: 2, lastError: 'boom 2' })
        await sleep(300)
        expect(runs).toBe(2)
        expect((await stateOf(job.id)).state).toBe('failed')
      })

      it('aborts the signal at the time limit; the run counts as failed', async () => {
        const type = freshType()
        let signalled = false
        await start(
          queue,
          {
            [type]: async (job) => {
              await aborted(job.signal).catch((error: unknown) => {
                signalled = true
                throw error
              })
            },
          },
          { timeLimitMs: 300 },
        )
        const job = await queue.enqueue(type, {}, { maxAttempts: 1 })
        const failed = await untilState(job, 'failed')
        expect(signalled).toBe(true)
        expect(failed.lastError).toMatch(/time limit/)
      })
    })

    describe('retry', () => {
      it('queues a failed job again with attempts from 0; it runs', async () => {
        const type = freshType()
        let fail = true
        await start(
          queue,
          {
            [type]: async () => {
              if (fail) throw new Error('not yet')
            },
          },
          { backoffMs: 20 },
        )
        const job = await queue.enqueue(type, { fileId: 3 }, { maxAttempts: 1 })
        await untilState(job, 'failed')
        fail = false
        const retried = (await queue.retry(job.id))!
        expect(retried).toMatchObject({ id: job.id, attempts: 0, maxAttempts: 1, payload: { fileId: 3 } })
        expect(['waiting', 'running', 'succeeded']).toContain(retried.state)
        expect(await untilState(job, 'succeeded')).toMatchObject({ attempts: 1, lastError: null })
      })

      it('refuses a job that is not failed; answers null for an unknown one', async () => {
        const job = await queue.enqueue(freshType(), {})
        await expect(queue.retry(job.id)).rejects.toThrow(/waiting/)
        expect(await queue.retry('999999999')).toBeNull()
      })
    })

    describe('keys', () => {
      it('answers the live job for a key already live, and queues a new one once it finished', async () => {
        const type = freshType()
        const first = await queue.enqueue(type, { n: 1 }, { key: 'encode:1' })
        const again = await queue.enqueue(type, { n: 2 }, { key: 'encode:1' })
        expect(again.id).toBe(first.id)
        expect(again.payload).toEqual({ n: 1 })
        expect(again.key).toBe('encode:1')
        const other = await queue.enqueue(type, {}, { key: 'encode:2' })
        expect(other.id).not.toBe(first.id)
        expect((await queue.list({ limit: 1000 })).filter((j) => j.type === type)).toHaveLength(2)

        await start(queue, { [type]: async () => undefined })
        await untilState(first, 'succeeded')
        const next = await queue.enqueue(type, { n: 3 }, { key: 'encode:1' })
        expect(next.id).not.toBe(first.id)
      })

      it('makes one job of concurrent enqueues with one key, from two queues', async () => {
        const type = freshType()
        const other = await sut.another()
        const jobs = await Promise.all(
          Array.from({ length: 16 }, (_, i) => (i % 2 ? other : queue).enqueue(type, { i }, { key: `race:${type}` })),
        )
        expect(new Set(jobs.map((j) => j.id)).size).toBe(1)
        expect((await queue.list({ limit: 1000 })).filter((j) => j.type === type)).toHaveLength(1)
      })

      it('refuses to retry a failed job while another live job holds its key', async () => {
        const type = freshType()
        await start(
          queue,
          {
            [type]: async () => {
              throw new Error('no')
            },
          },
          { backoffMs: 20 },
        )
        const failed = await queue.enqueue(type, {}, { key: 'k', maxAttempts: 1 })
        await untilState(failed, 'failed')
        await queue.stop()
        started.length = 0
        const live = await queue.enqueue(type, {}, { key: 'k' })
        expect(live.id).not.toBe(failed.id)
        await expect(queue.retry(failed.id)).rejects.toThrow(new RegExp(`job ${live.id}\\b`))
        expect((await stateOf(failed.id)).state).toBe('failed')
      })
    })

    describe('concurrency', () => {
      it('runs at most `concurrency` jobs at once, each once', async () => {
        const type = freshType()
        let active = 0
        let most = 0
        const ran: string[] = []
        await start(
          queue,
          {
            [type]: async (job) => {
              active++
              most = Math.max(most, active)
              await sleep(150)
              ran.push(job.id)
              active--
            },
          },
          { concurrency: 2 },
        )
        const jobs = await Promise.all(Array.from({ length: 6 }, (_, i) => queue.enqueue(type, { i })))
        for (const job of jobs) await untilState(job, 'succeeded')
        expect(most).toBe(2)
        expect(ran.sort()).toEqual(jobs.map((j) => j.id).sort())
      })

      it('never runs a job twice when two queues consume the same store', async () => {
        const type = freshType()
        const other = await sut.another()
        let active = 0
        let most = 0
        const ran: string[] = []
        const handler: JobHandler = async (job) => {
          active++
          most = Math.max(most, active)
          await sleep(60)
          ran.push(job.id)
          active--
        }
        await start(queue, { [type]: handler }, { concurrency: 2 })
        await start(other, { [type]: handler }, { concurrency: 2 })
        const jobs = await Promise.all(
          Array.from({ length: 16 }, (_, i) => (i % 2 ? other : queue).enqueue(type, { i })),
        )
        for (const job of jobs) await untilState(job, 'succeeded')
        expect(ran.sort()).toEqual(jobs.map((j) => j.id).sort())
        expect(most).toBeLessThanOrEqual(4)
        for (const job of jobs) expect((await stateOf(job.id)).attempts).toBe(1)
      })
    })

    describe('stopping and crashing', () => {
      it('stop() aborts running jobs through their signal; they run again later, the cut run not counted', async () => {
        const type = freshType()
        const runs: { attempt: number; outcome: string }[] = []
        const running = deferred()
        await start(queue, {
          [type]: async (job) => {
            running.resolve()
            await aborted(job.signal).catch((error: unknown) => {
              runs.push({ attempt: job.attempt, outcome: 'aborted' })
              throw error
            })
          },
        })
        const job = await queue.enqueue(type, {})
        await running.promise
        expect((await stateOf(job.id)).state).toBe('running')
        await queue.stop()
        started.length = 0
        expect(runs).toEqual([{ attempt: 1, outcome: 'aborted' }])
        const back = await stateOf(job.id)
        expect(back).toMatchObject({ state: 'waiting', attempts: 0 })

        const other = await sut.another()
        await start(other, {
          [type]: async (j) => void runs.push({ attempt: j.attempt, outcome: 'done' }),
        })
        expect(await untilState(job, 'succeeded')).toMatchObject({ attempts: 1 })
        expect(runs).toEqual([
          { attempt: 1, outcome: 'aborted' },
          { attempt: 1, outcome: 'done' },
        ])
      })

      it('stop() does nothing when not started; start() twice is refused', async () => {
        const other = await sut.another()
        await other.stop()
        await start(other, { [freshType()]: async () => undefined })
        await expect(other.start(new Map(), options())).rejects.toThrow()
      })

      it('a run left behind by a process that stopped without finishing runs again elsewhere, once, to success', async () => {
        const type = freshType()
        const gone = await sut.another()
        const hung = deferred()
        const running = deferred()
        let survivorRuns = 0
        // A handler that ignores its signal: the process exits (stop gives up) with the job still running.
        await gone.start(
          new Map([
            [
              type,
              async () => {
                running.resolve()
                await hung.promise
              },
            ],
          ]),
          options(),
        )
        const job = await queue.enqueue(type, {})
        await running.promise
        await gone.stop({ graceMs: 50 })
        expect((await stateOf(job.id)).state).toBe('running')

        await start(queue, {
          [type]: async (j) => {
            survivorRuns++
            expect(j.attempt).toBe(2)
          },
        })
        const done = await untilState(job, 'succeeded', sut.leaseMs * 3 + 10_000)
        expect(done.attempts).toBe(2)
        expect(survivorRuns).toBe(1)
        // The first run settles late: it must not change what the survivor recorded.
        hung.resolve()
        await sleep(300)
        expect(await stateOf(job.id)).toMatchObject({ state: 'succeeded', attempts: 2 })
        expect(survivorRuns).toBe(1)
      })

      it('a job outliving its lease stays with its process (the lease is renewed), run once', async () => {
        const type = freshType()
        const other = await sut.another()
        let runs = 0
        const handler: JobHandler = async () => {
          runs++
          await sleep(sut.leaseMs * 2.5)
        }
        await start(queue, { [type]: handler })
        const job = await queue.enqueue(type, {})
        await until('job running', async () => (await stateOf(job.id)).state === 'running')
        await start(other, { [type]: handler })
        const done = await untilState(job, 'succeeded', sut.leaseMs * 5 + 10_000)
        expect(done.attempts).toBe(1)
        expect(runs).toBe(1)
      })
    })
  })
}
