import type { IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { NotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.js'
import type { DigestClient } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { type Leftovers, filesUnder, leftovers } from './hostile.helpers.js'

/**
 * A seeded pseudo-random generator (mulberry32): cut points look random but a run is
 * replayed exactly from its seed. A string seed (a test's name with the run's seed) gives
 * each test its own sequence, the same whether it runs alone or with the others.
 */
export function seeded(seed: number | string): { next(): number; int(min: number, max: number): number } {
  // A number as is; a string through FNV-1a.
  let state = typeof seed === 'number' ? seed >>> 0 : 0x811c9dc5
  if (typeof seed === 'string') for (const char of seed) state = Math.imul(state ^ char.charCodeAt(0), 0x01000193) >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** A whole number from `min` to `max`, both included. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return { next, int }
}

/** The seed of a run: MEDIACTL_TEST_SEED replays one; otherwise a fixed one, so every run is the same. */
export const SEED = Number(process.env.MEDIACTL_TEST_SEED ?? 20_251_126)

/** One HTTP/1.1 request, written byte by byte by the test (no client library in the way). */
export interface RawExchange {
  method: string
  /** The request target (path and query). */
  path: string
  headers?: Record<string, string>
  /** The whole body; its length is the Content-Length sent, whatever part of it is written. */
  body?: Buffer
}

/**
 * How the client behaves:
 * - `complete`: writes the whole request, reads the answer to its end;
 * - `destroy`: writes the first `at` bytes of the request (head and body), then destroys the socket;
 * - `end`: writes the first `at` bytes, then half-closes (FIN) and reads whatever answer comes;
 * - `cut-response`: writes the whole request, then destroys the socket once `at` bytes of the
 *   answer (head included) arrived.
 */
export type Finish =
  | { kind: 'complete' }
  | { kind: 'destroy'; at: number }
  | { kind: 'end'; at: number }
  | { kind: 'cut-response'; at: number }

/** What the client saw. */
export interface RawOutcome {
  /** The answer's status; undefined when no answer (head) came before the connection ended. */
  status?: number
  /** The bytes of the answer received (head and body). */
  received: Buffer
  /** The body of the answer, when it arrived whole. */
  body?: Buffer
}

/** The bytes of a request: its head (with Host, Content-Length and `Connection: close`) and its body. */
export function requestBytes(url: string, exchange: RawExchange): Buffer {
  const body = exchange.body ?? Buffer.alloc(0)
  const headers: Record<string, string> = {
    host: new URL(url).host,
    connection: 'close',
    ...exchange.headers,
  }
  if (exchange.body !== undefined) headers['content-length'] = String(body.length)
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  return Buffer.concat([Buffer.from(`${exchange.method} ${exchange.path} HTTP/1.1\r\n${head}\r\n`, 'latin1'), body])
}

/** The length of a request's head (its body follows it). */
export function headLength(url: string, exchange: RawExchange): number {
  return requestBytes(url, exchange).length - (exchange.body?.length ?? 0)
}

/** Splits an answer into its status and, when it is complete, its body (Content-Length or until close). */
function parseAnswer(received: Buffer, whole: boolean): Pick<RawOutcome, 'status' | 'body'> {
  const end = received.indexOf('\r\n\r\n')
  if (end === -1) return {}
  const head = received.subarray(0, end).toString('latin1')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1]
  const body = received.subarray(end + 4)
  if (length !== undefined) return { status, body: body.length >= Number(length) ? body : undefined }
  return { status, body: whole && !/\r\ntransfer-encoding:/i.test(head) ? body : undefined }
}

/**
 * Sends a request through a raw socket to the test app and behaves as `finish` says. Fails
 * (rejects) when a connection the client keeps open gets no answer within `timeout` ms: the
 * server hangs, which is a finding, not something to wait out.
 */
export function rawExchange(url: string, exchange: RawExchange, finish: Finish, timeout = 15_000): Promise<RawOutcome> {
  const target = new URL(url)
  const bytes = requestBytes(url, exchange)
  const cut = finish.kind === 'destroy' || finish.kind === 'end' ? Math.min(finish.at, bytes.length) : bytes.length
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname)
    const chunks: Buffer[] = []
    let length = 0
    let settled = false
    const done = (whole: boolean): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const received = Buffer.concat(chunks)
      resolve({ received, ...parseAnswer(received, whole) })
    }
    const timer = setTimeout(() => {
      socket.destroy()
      if (!settled) reject(new Error(`no answer within ${timeout} ms to ${exchange.method} ${exchange.path}`))
      settled = true
    }, timeout)
    // A reset from the server (it closed while the client was still writing) is one of the outcomes.
    socket.on('error', () => done(false))
    socket.on('close', () => done(true))
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      length += chunk.length
      if (finish.kind === 'cut-response' && length >= finish.at) {
        socket.destroy()
        done(false)
      }
    })
    socket.on('connect', () => {
      socket.write(bytes.subarray(0, cut), () => {
        if (finish.kind === 'destroy') {
          socket.destroy()
          done(false)
        } else if (finish.kind === 'end') {
          socket.end()
        }
      })
    })
  })
}

/** A request that reached a route handler, as `probeHandlers` saw it. */
export interface HandledRequest {
  method: string
  /** The route's pattern. */
  route: string
  /** The request's `X-Cut-Id` header, for a test to find its own requests. */
  id?: string
  /** Whether the handler read the body as a form (`c.form`). */
  readForm: boolean
  settled: boolean
  /** The handler threw (the kernel answers the error): its status, or 500 for anything unexpected. */
  threw?: number
}

/** The status the kernel answers a handler's error with (as its request pipeline maps them). */
function statusOf(error: unknown): number {
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number') return status
  if (error instanceof NotFoundError) return 404
  if (error instanceof UniqueConstraintViolationException) return 412
  return 500
}

/**
 * Resolves once a request is aborted (at once when it already is); rejects when it is not
 * within `timeout` ms, so a hold that never ends fails its request (a 500 the test reports)
 * instead of letting the handler run as if the client were gone. Node learns that a client
 * is gone only by reading its connection, so held requests carry small bodies (under the
 * 16 KiB node reads ahead).
 */
function aborted(req: IncomingMessage, timeout: number): Promise<void> {
  return waitFor(() => req.destroyed, { timeout, message: 'the held request to be aborted by its client' })
}

/** The header that has `probeHandlers` start a request's handler only once its client is gone. */
export const HOLD_HEADER = 'x-cut-hold'

/** What `probeHandlers` answers. */
export interface HandlerProbe {
  seen: HandledRequest[]
  /**
   * Waits (up to `timeout` ms) until every handler started since `seen[from]` settled, and
   * until requests with each of `ids` (`X-Cut-Id`) reached theirs (a request whose client is
   * gone at once may reach its handler after the client returned).
   */
  settle(from?: number, timeout?: number, ids?: readonly string[]): Promise<void>
  /** Waits as `settle`, then fails naming the handlers that never settled. */
  expectSettled(from?: number, timeout?: number): Promise<void>
}

/**
 * Wraps every route handler of the app to see each request through: whether its handler
 * settles (a handler waiting forever on a body that was cut holds its request's resources
 * with nobody left to answer) and whether it read the body as a form. A request carrying
 * HOLD_HEADER starts its handler only once it is aborted: what a slow step before the body
 * is read (a database round trip, a lock) makes happen sometimes, made to happen every time.
 */
export function probeHandlers(app: TestApp): HandlerProbe {
  const probe: HandlerProbe = {
    seen: [],
    async settle(from = 0, timeout = 5000, ids = []) {
      const done = (): boolean => {
        const entries = probe.seen.slice(from)
        return entries.every((entry) => entry.settled) && ids.every((id) => entries.some((entry) => entry.id === id))
      }
      await waitFor(done, { timeout, message: 'route handlers to settle' }).catch(() => undefined)
    },
    async expectSettled(from = 0, timeout = 5000) {
      await probe.settle(from, timeout)
      expect(
        probe.seen
          .slice(from)
          .filter((entry) => !entry.settled)
          .map((entry) => `${entry.method} ${entry.route}`),
        'handlers still running (they never settle)',
      ).toEqual([])
    },
  }
  for (const route of app.kernel.routes.routes) {
    const inner = route.handler
    route.handler = async (c) => {
      const id = c.req.headers['x-cut-id']
      const entry: HandledRequest = {
        method: c.req.method ?? '',
        route: route.path,
        id: typeof id === 'string' ? id : undefined,
        readForm: false,
        settled: false,
      }
      probe.seen.push(entry)
      const form = c.form.bind(c)
      c.form = (...args) => {
        entry.readForm = true
        return form(...args)
      }
      try {
        if (c.req.headers[HOLD_HEADER]) await aborted(c.req, 5000)
        return await inner(c)
      } catch (error) {
        entry.threw = statusOf(error)
        throw error
      } finally {
        entry.settled = true
      }
    }
  }
  return probe
}

/**
 * What `leftovers` sees, and also the folders other request paths write to: the encoding
 * plugin's work folder (custom snapshots are received there) and the tus uploads in progress.
 */
export interface Traces extends Leftovers {
  work: string[]
  tus: string[]
}

export async function traces(app: TestApp): Promise<Traces> {
  return {
    ...(await leftovers(app)),
    work: filesUnder(join(app.dataDir, 'work')),
    tus: filesUnder(join(app.dataDir, 'storage', '~tus')),
  }
}

/** Waits until the app holds exactly what it held (`before`), then checks it (failing with the difference). */
export async function expectNoTraces(app: TestApp, before: Traces, timeout = 10_000): Promise<void> {
  let now = before
  await waitFor(
    async () => {
      now = await traces(app)
      return JSON.stringify(now) === JSON.stringify(before)
    },
    { timeout, message: 'traces of cut requests to go' },
  ).catch(() => undefined)
  expect(now).toEqual(before)
}

/** The server still serves: an authenticated `GET /` answers 200. */
export async function expectServing(client: DigestClient): Promise<void> {
  const res = await client.get('/')
  expect(res.status, res.body).toBe(200)
}

/**
 * File handles node closed on garbage collection (its "Closing file descriptor N on garbage
 * collection" warning): each one is a read stream nobody closed. Garbage collection hides
 * such a leak from a count of open descriptors (given time, they are back), this does not.
 */
export function watchLeakedHandles(): { leaked: string[]; stop(): void } {
  const leaked: string[] = []
  const onWarning = (warning: Error): void => {
    if (/closing file descriptor \d+ on garbage collection/i.test(warning.message)) leaked.push(warning.message)
  }
  process.on('warning', onWarning)
  return { leaked, stop: () => process.off('warning', onWarning) }
}
