import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LocksPort, NONCE_COUNT_WINDOW, type NonceCounterPort } from '../../src/kernel/index.js'
import { waitFor } from '../helpers/wait.js'

/**
 * The guarantees of the shared-state ports (src/kernel/ports/nonce-counter.port.ts and
 * locks.port.ts) as tests, run by every adapter: the kernel's memory and database ones,
 * state-redis. An adapter of `installation` scope is run as two processes (two instances on
 * one store); one of `process` scope as one, and must say so.
 */
export interface StateUnderTest {
  /** Two instances on one store ("two processes"); the same one twice for a `process` adapter. */
  counters: [NonceCounterPort, NonceCounterPort]
  locks: [LocksPort, LocksPort]
  /** A third instance that can die (stop renewing its locks): installation adapters only. */
  mortalLocks?: () => Promise<{ locks: LocksPort; die(): Promise<void> }>
  close(): Promise<void>
}

const forever = (): AbortSignal => new AbortController().signal
let unique = 0
/** A name no other test (or earlier run on a shared store) used. */
const fresh = (what: string): string => `${what}-${process.pid}-${Date.now()}-${++unique}`

export function sharedStateConformance(
  adapter: string,
  scope: 'process' | 'installation',
  open: () => Promise<StateUnderTest>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip)(`shared state conformance: ${adapter}`, () => {
    let state: StateUnderTest
    beforeAll(async () => {
      state = await open()
    })
    afterAll(async () => state?.close())

    it(`declares its scope: ${scope}`, () => {
      for (const port of [...state.counters, ...state.locks]) expect(port.scope).toBe(scope)
    })

    describe('nonce counter', () => {
      it('accepts each count once per nonce, whichever process sees it', async () => {
        const [a, b] = state.counters
        const n = fresh('n')
        expect(await a.advance(n, 1, 60)).toBe(true)
        expect(await b.advance(n, 1, 60)).toBe(false)
        expect(await a.advance(n, 1, 60)).toBe(false)
        expect(await b.advance(n, 2, 60)).toBe(true)
        expect(await b.advance(fresh('other'), 1, 60)).toBe(true)
      })

      it('accepts counts out of order within the window, once each', async () => {
        const [a, b] = state.counters
        const n = fresh('n')
        expect(await a.advance(n, 5, 60)).toBe(true)
        expect(await b.advance(n, 3, 60)).toBe(true)
        expect(await a.advance(n, 4, 60)).toBe(true)
        expect(await b.advance(n, 3, 60)).toBe(false)
        expect(await a.advance(n, 5, 60)).toBe(false)
      })

      it(`refuses counts ${NONCE_COUNT_WINDOW} or more below the highest seen`, async () => {
        const [a, b] = state.counters
        const n = fresh('n')
        expect(await a.advance(n, 100, 60)).toBe(true)
        expect(await b.advance(n, 100 - NONCE_COUNT_WINDOW, 60)).toBe(false)
        expect(await b.advance(n, 100 - NONCE_COUNT_WINDOW + 1, 60)).toBe(true)
      })

      it('accepts many different counts claimed at once (a busy server), each once', async () => {
        const [a, b] = state.counters
        const n = fresh('n')
        const counts = Array.from({ length: 60 }, (_, i) => i + 1)
        expect(await Promise.all(counts.map((nc) => (nc % 2 ? a : b).advance(n, nc, 60)))).toEqual(
          counts.map(() => true),
        )
        expect(await Promise.all(counts.map((nc) => (nc % 2 ? b : a).advance(n, nc, 60)))).toEqual(
          counts.map(() => false),
        )
      })

      it('lets exactly one of many concurrent claims of one count in', async () => {
        const [a, b] = state.counters
        const n = fresh('n')
        const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).advance(n, 7, 60)))
        expect(claims.filter(Boolean)).toHaveLength(1)
      })
    })

    describe('locks', () => {
      it('is exclusive; a release hands the lock to the waiter', async () => {
        const [one, two] = state.locks
        const key = fresh('lock')
        let asked = (): void => undefined
        const waited = new Promise<void>((resolve) => (asked = resolve))
        const first = await one.acquire(key, { signal: forever(), onReleaseRequested: () => asked() })
        expect(first).not.toBeNull()
        const order: string[] = []
        const second = two.acquire(key, { signal: forever() }).then((lease) => {
          order.push('second took it')
          return lease
        })
        // The second tried, found it held and asked for it (it waits now): it did not take it.
        await waited
        expect(order).toEqual([])
        order.push('first releases')
        await first!.release()
        const lease = await second
        expect(order).toEqual(['first releases', 'second took it'])
        await lease!.release()
      })

      it('asks the holder to release: its onReleaseRequested runs, once', async () => {
        const [one, two] = state.locks
        const key = fresh('lock')
        let asked = 0
        const held = await one.acquire(key, { signal: forever(), onReleaseRequested: () => (asked += 1) })
        const waiting = two.acquire(key, { signal: forever() })
        await waitFor(() => asked > 0, { message: 'the release request' })
        await held!.release()
        await (await waiting)!.release()
        expect(asked).toBe(1)
      })

      it('stops waiting when the signal aborts (null); the holder keeps the lock', async () => {
        const [one, two] = state.locks
        const key = fresh('lock')
        const held = await one.acquire(key, { signal: forever() })
        const abort = new AbortController()
        const waiting = two.acquire(key, { signal: abort.signal })
        abort.abort()
        expect(await waiting).toBeNull()
        // Still held: a try bounded to half a second does not get it either.
        expect(await two.acquire(key, { signal: AbortSignal.timeout(500) })).toBeNull()
        await held!.release()
      })

      it('is free again after a release; releasing twice does nothing', async () => {
        const [one, two] = state.locks
        const key = fresh('lock')
        const first = await one.acquire(key, { signal: forever() })
        await first!.release()
        await first!.release()
        const second = await two.acquire(key, { signal: AbortSignal.timeout(5000) })
        expect(second).not.toBeNull()
        await second!.release()
      })

      it.runIf(scope === 'installation')('frees the lock of a holder that died, once its ttl passed', async () => {
        const [, two] = state.locks
        const key = fresh('lock')
        const mortal = await state.mortalLocks!()
        const held = await mortal.locks.acquire(key, { signal: forever(), ttlMs: 600 })
        expect(held).not.toBeNull()
        await mortal.die()
        const taken = await two.acquire(key, { signal: AbortSignal.timeout(10_000) })
        expect(taken).not.toBeNull()
        await taken!.release()
      })

      it.runIf(scope === 'installation')('renews a lock held longer than its ttl', async () => {
        const [one, two] = state.locks
        const key = fresh('lock')
        const held = await one.acquire(key, { signal: forever(), ttlMs: 300 })
        // Three ttls later nobody else could take it.
        const waiting = two.acquire(key, { signal: AbortSignal.timeout(1000) })
        expect(await waiting).toBeNull()
        await held!.release()
      })
    })
  })
}
