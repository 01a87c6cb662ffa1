import type { Knex } from '@mikro-orm/knex'
import { type JobSignal, type JobTaker, type Logger, PollLoop, type QueuePort } from '../../src/kernel/index.js'

export interface InlineQueueOptions {
  /** The ORM's knex (for `check`). */
  knex: Knex
  log: Logger
  /** Milliseconds between two looks for due jobs. */
  pollIntervalMs: number
  /** Whether `serve` runs the jobs (`queue-inline.consume_in_serve`, default true); `mediactl worker` always does. */
  consumesInServe?: boolean
}

/**
 * The inline transport: consumers find due jobs in the database themselves, every
 * `poll_interval` and at once when this process queued one or a run ended, so a signal only
 * wakes the local poller. Every process on the database (`serve`, `mediactl worker`) may
 * consume; claims are atomic (see the kernel's JobStore).
 */
export class InlineQueue implements QueuePort {
  readonly polls = true
  readonly consumesInServe: boolean
  private loop: PollLoop | undefined
  private active = false
  private failing = false

  constructor(private readonly options: InlineQueueOptions) {
    this.consumesInServe = options.consumesInServe ?? true
  }

  signal(jobs: readonly JobSignal[]): Promise<void> {
    const now = Date.now()
    if (jobs.some((job) => job.runAfter.getTime() <= now)) this.loop?.wake()
    return Promise.resolve()
  }

  consume(taker: JobTaker): Promise<void> {
    if (this.active) throw new Error('the inline queue is already consuming')
    this.active = true
    const loop = new PollLoop(
      () => this.look(taker),
      this.options.pollIntervalMs,
      () => this.active,
    )
    this.loop = loop
    const wakeOnFree = (): void => {
      if (!this.active || this.loop !== loop) return
      void taker.slotFreed().then(() => {
        loop.wake()
        wakeOnFree()
      })
    }
    wakeOnFree()
    loop.wake()
    return Promise.resolve()
  }

  private async look(taker: JobTaker): Promise<void> {
    try {
      const free = taker.free()
      if (free > 0) await taker.takeDue(free)
      if (this.failing) this.options.log.info('the job queue reaches the database again')
      this.failing = false
    } catch (error) {
      if (!this.failing)
        this.options.log.error({ err: error }, 'the job queue cannot reach the database; it keeps trying')
      this.failing = true
    }
  }

  async stop(): Promise<void> {
    this.active = false
    await this.loop?.halt()
    this.loop = undefined
  }

  close(): Promise<void> {
    return this.stop()
  }

  async check(): Promise<void> {
    await this.options.knex.raw('select 1')
  }
}
