import { DelayedError, type Job, Queue, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import type { JobSignal, JobTaker, Logger, QueuePort } from '../../src/kernel/index.js'

/** Stall recoveries before BullMQ drops a signal on its own (the reconciler sends it again anyway). */
const MAX_STALLED = 10
/** How long `check` waits for Redis. */
const CHECK_TIMEOUT_MS = 2000

export interface BullmqQueueOptions {
  /** Redis URL (redis:// or rediss://). */
  url: string
  /** BullMQ key prefix (`queue-bullmq.prefix`). */
  prefix: string
  /** Name of the installation's BullMQ queue (`queue-bullmq.queue`). */
  queue: string
  log: Logger
  /** Whether `serve` runs the jobs too (`queue-bullmq.consume_in_serve`). */
  consumesInServe: boolean
  /** Milliseconds a delivered signal's lock lasts (BullMQ's lockDuration); the job's own lease is in the database. */
  lockMs: number
  /** Milliseconds between two stall checks (BullMQ's stalledInterval). */
  stalledIntervalMs: number
}

/** What a signal carries: the job's number (the job itself is in the database). */
interface SignalData {
  id: string
}

/**
 * The Redis transport, through BullMQ's public API: a signal is a BullMQ job (`<job>-<due ms>`,
 * so signalling a waiting job twice adds it once) in one queue, delayed until the job is due,
 * removed once delivered; workers on any machine take signals with BullMQ's `Worker` and run
 * the job through the kernel's runner, which claims it in the database. A signal taken too
 * early (the job still backs off, or runs elsewhere) is delayed again (`moveToDelayed`). Redis
 * holds nothing the database does not: flushed or restarted empty, it gets every waiting job
 * again from the reconciler.
 */
export class BullmqQueue implements QueuePort {
  readonly polls = false
  readonly consumesInServe: boolean
  private producerConnection: Redis | undefined
  private producerQueue: Queue | undefined
  private worker: Worker<SignalData> | undefined
  private readonly warned = new Map<string, number>()
  private readonly backListeners: (() => void)[] = []

  constructor(private readonly options: BullmqQueueOptions) {
    this.consumesInServe = options.consumesInServe
  }

  /** The connection for signalling, opened on first use (a CLI command that never signals never connects). */
  private get producer(): Queue {
    if (!this.producerQueue) {
      // Fail fast while Redis is unreachable: the job is safe in the database, the reconciler signals it again.
      this.producerConnection = new Redis(this.options.url, { maxRetriesPerRequest: 2 })
      this.producerConnection.on('error', (error: Error) => this.connectionError(error))
      this.watchReturn(this.producerConnection)
      this.producerQueue = new Queue(this.options.queue, {
        connection: this.producerConnection,
        prefix: this.options.prefix,
      })
      this.producerQueue.on('error', (error: Error) => this.connectionError(error))
    }
    return this.producerQueue
  }

  onBack(listener: () => void): void {
    this.backListeners.push(listener)
  }

  /** Tells the `onBack` listeners when `connection` is ready again after it was lost (not at its first connection). */
  private watchReturn(connection: Redis): void {
    let connected = false
    let lost = false
    connection.on('close', () => (lost = connected))
    connection.on('ready', () => {
      if (lost) for (const listener of this.backListeners) listener()
      connected = true
      lost = false
    })
  }

  /** ioredis and BullMQ report every failed reconnection, from every connection: one line a minute per message. */
  private connectionError(error: Error): void {
    const now = Date.now()
    const message = error.message || error.name
    if (now - (this.warned.get(message) ?? 0) < 60_000) return
    this.warned.set(message, now)
    if (this.warned.size > 100) this.warned.clear()
    this.options.log.warn({ err: message }, 'redis error (job queue)')
  }

  async signal(jobs: readonly JobSignal[]): Promise<void> {
    if (!jobs.length) return
    const now = Date.now()
    await this.producer.addBulk(
      jobs.map((job) => ({
        name: job.type,
        data: { id: job.id },
        opts: {
          jobId: `${job.id}-${job.runAfter.getTime()}`,
          delay: Math.max(0, job.runAfter.getTime() - now),
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    )
  }

  consume(taker: JobTaker): Promise<void> {
    if (this.worker) throw new Error('the BullMQ queue is already consuming')
    // Workers block on their connection: no retry limit, as BullMQ requires.
    const connection = new Redis(this.options.url, { maxRetriesPerRequest: null })
    connection.on('error', (error: Error) => this.connectionError(error))
    this.watchReturn(connection)
    const worker = new Worker<SignalData>(this.options.queue, (job, token) => this.deliver(taker, job, token), {
      connection,
      prefix: this.options.prefix,
      concurrency: Math.max(1, taker.free()),
      lockDuration: this.options.lockMs,
      stalledInterval: this.options.stalledIntervalMs,
      maxStalledCount: MAX_STALLED,
      autorun: false,
    })
    worker.on('error', (error: Error) => this.connectionError(error))
    this.worker = worker
    void worker.run().catch((error: unknown) => this.options.log.error({ err: error }, 'the BullMQ worker stopped'))
    return Promise.resolve()
  }

  /** Runs the signalled job (through the runner); too early, the signal waits until it may be due. */
  private async deliver(taker: JobTaker, job: Job<SignalData>, token: string | undefined): Promise<void> {
    const outcome = await taker.take(String(job.data.id))
    if (outcome.done) return
    await job.moveToDelayed(Math.max(outcome.at.getTime(), Date.now() + 50), token)
    throw new DelayedError()
  }

  async stop(graceMs: number): Promise<void> {
    const worker = this.worker
    if (!worker) return
    this.worker = undefined
    let timer: NodeJS.Timeout | undefined
    // Pausing takes no new signal and resolves once the deliveries under way ended. It may still be under way when
    // the grace ends and the close below cuts its connection: its rejection ("Connection is closed") is then expected
    // and must not go unhandled.
    const drained = worker.pause().then(
      () => true,
      () => true,
    )
    const inTime = await Promise.race([
      drained,
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ])
    clearTimeout(timer)
    // The one close (BullMQ answers a second close with the first's promise): forced when
    // deliveries did not end (runs abandoned to their lease: their signals' locks expire).
    await worker.close(!inTime).catch(() => undefined)
    await worker.disconnect().catch(() => undefined)
  }

  async close(): Promise<void> {
    await this.stop(0)
    await this.producerQueue?.close().catch(() => undefined)
    this.producerConnection?.disconnect()
    this.producerQueue = undefined
    this.producerConnection = undefined
  }

  async check(): Promise<void> {
    const redis = new Redis(this.options.url, {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      connectTimeout: CHECK_TIMEOUT_MS,
    })
    redis.on('error', () => undefined)
    try {
      await redis.connect()
      await redis.ping()
    } finally {
      redis.disconnect()
    }
  }
}
