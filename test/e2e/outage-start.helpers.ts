import { expect } from 'vitest'
import { DigestClient, rawRequest } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { FAST_ENCODER, makeMedia, uploadMedia, waitForStatus } from '../plugins/encoding/encoding.helpers.js'
import { freePort } from '../helpers/redis-server.js'
import { type Running, type Server, alive, childrenOf, cliJson, start } from './harness.js'

/**
 * The goal: once a dependency is back, every HTTP process answers 200 and the video uploaded before the
 * outage is encoded within this many milliseconds of its return. Each trial prints its figures against it.
 */
export const BACK_GOAL_MS = 20_000

/**
 * The bound of failure: twice the goal, which catches a recovery that hangs or waits on a timer. The goal itself was
 * met by 37 of 38 trials measured on idle runs; the other took 20.1 s (docs/benchmarks.md, Starting through an outage).
 */
export const BACK_WITHIN_MS = 2 * BACK_GOAL_MS

/**
 * The job and encoder settings of these files, as YAML lines: a lease short enough to take back a
 * killed run, and the least encoding that still runs every step (one rung, no HLS): the bound is
 * about recovering, and the suite runs these files beside others that encode.
 */
export const JOB_SETTINGS = [
  'jobs: { concurrency: 1, backoff: 1, lease: 5 }',
  `encoder-ffmpeg: ${JSON.stringify({
    ...FAST_ENCODER,
    video: { ...FAST_ENCODER.video, ladder: FAST_ENCODER.video.ladder.slice(-1) },
    hls: { enabled: false },
  })}`,
]

/** A pseudo-random sequence from `seed` (mulberry32): the same moments each run, another seed for others. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The seed of the moments: MEDIACTL_TEST_SEED to replay another run's, else a fixed one. */
export const SEED = Number(process.env.MEDIACTL_TEST_SEED ?? 32)

/** Kills `serve` and its HTTP processes as a crash would (SIGKILL), once every one of them is gone. */
export async function crash(server: Server): Promise<void> {
  const children = childrenOf(server.child.pid!)
  await server.stop('SIGKILL')
  for (const pid of children) if (alive(pid)) process.kill(pid, 'SIGKILL')
  await waitFor(() => children.every((pid) => !alive(pid)), { message: 'the HTTP processes gone' })
}

/** The process numbers (`X-Mediactl-Process`) that answered `/ready` 200, asked on `tries` fresh connections. */
async function readyProcesses(url: string, tries: number): Promise<Set<string>> {
  const seen = new Set<string>()
  for (let i = 0; i < tries; i++) {
    const answer = await rawRequest(url + '/ready', 'GET', { agent: false }).catch(() => undefined)
    const name = answer?.headers['x-mediactl-process']
    if (answer?.status === 200 && typeof name === 'string') seen.add(name)
  }
  return seen
}

/** Waits until each of the `processes` HTTP processes answers `/ready` 200 (the primary hands connections round-robin). */
export async function everyProcessReady(url: string, processes: number, timeout: number): Promise<void> {
  let seen = new Set<string>()
  await waitFor(async () => (seen = await readyProcesses(url, processes * 2)).size === processes, {
    timeout,
    interval: 100,
    message: () => `every HTTP process ready (seen ${[...seen].join(', ') || 'none'})`,
  })
}

/**
 * An initialized appliance in `dir`: `serve --processes 2` and its Digest client, a video to
 * upload, and the checks each outage ends with.
 */
export class Appliance {
  private apiKey = ''
  /** The port every serve of this appliance binds: known before it serves (probes answer while it starts). */
  private port = 0

  constructor(readonly dir: string) {}

  /** `http://127.0.0.1:<port>`, where serve answers (the probes too while it starts). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  async init(): Promise<void> {
    this.apiKey = (await cliJson<{ api_key: string }>(['init'], { cwd: this.dir })).api_key
    this.port = await freePort()
  }

  client(): DigestClient {
    return new DigestClient(this.url, 'admin', this.apiKey)
  }

  /** Starts `serve --processes 2 <args>` on the appliance's port; resolves once it prints that it serves. */
  async serve(args: string[] = []): Promise<Server> {
    const command = ['serve', '--host', '127.0.0.1', '--port', String(this.port), '--processes', '2', ...args]
    const running = await start(command, { cwd: this.dir }, 'stop with Ctrl-C')
    return { ...running, url: this.url, publicUrl: this.url }
  }

  /** Starts `mediactl worker` once it runs jobs. */
  worker(): Promise<Running> {
    return start(['worker'], { cwd: this.dir }, 'stop with Ctrl-C')
  }

  /**
   * Starts `serve --processes 2` and `worker` while a dependency is down: resolves once serve
   * answers /health (alive) and /ready 503 with Retry-After (not ready), with both still starting.
   */
  async startWhileDown(): Promise<{ booting: Promise<Server>; working: Promise<Running> }> {
    const booting = this.serve()
    const working = this.worker()
    booting.catch(() => undefined)
    working.catch(() => undefined)
    await waitFor(
      async () =>
        (await rawRequest(`${this.url}/health`, 'GET', { agent: false }).catch(() => undefined))?.status === 200,
      {
        timeout: 30_000,
        message: 'serve answering /health while it waits',
      },
    )
    const ready = await rawRequest(`${this.url}/ready`, 'GET', { agent: false })
    expect([ready.status, ready.headers['retry-after']]).toEqual([503, '5'])
    return { booting, working }
  }

  /** Uploads a short video (1 s unless said) through the running serve; answers its slug (its encoding job is queued). */
  async upload(seconds = 1): Promise<string> {
    return uploadMedia(this.client(), await makeMedia('video', { seconds, size: '160x120' }), 'clip.mp4')
  }

  /**
   * What every outage ends with, within BACK_WITHIN_MS of `back` (when the dependency answered
   * again): both HTTP processes answer `/ready` 200, the video is encoded, and no job is left running.
   */
  async recovered(
    server: Server,
    back: number,
    slug: string | undefined,
    running: () => Promise<number>,
  ): Promise<void> {
    const left = (): number => Math.max(1, back + BACK_WITHIN_MS - Date.now())
    await everyProcessReady(server.url, 2, left())
    const ready = Date.now() - back
    if (slug) {
      const samples = await waitForStatus(this.client(), slug, ['finished', 'failed'], left())
      expect(samples.at(-1), JSON.stringify(samples.slice(-3))).toEqual({ status: 'finished', progress: 100 })
      await waitFor(async () => (await running()) === 0, { timeout: left(), message: 'no job left running' })
    }
    const done = Date.now() - back
    // The margin under the bound, for whoever tunes it (the suite's output keeps it).
    console.log(
      `back: every HTTP process ready after ${ready} ms, the video encoded and no job running after ${done} ms` +
        (done <= BACK_GOAL_MS ? '' : ` (over the goal of ${BACK_GOAL_MS} ms)`),
    )
    expect(done, 'recovered within the bound').toBeLessThanOrEqual(BACK_WITHIN_MS)
  }
}
