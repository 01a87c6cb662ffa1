/** A job consumers should know of: it is due at `runAfter` (now or later). */
export interface JobSignal {
  id: string
  type: string
  runAfter: Date
}

/** What a signalled job turned out to be when a consumer took it. */
export type TakeOutcome =
  /** It ran (to whatever end), or there was nothing to run (finished, cancelled, gone). */
  | { done: true }
  /** Not yet: take it again at `at` (due later, running under a live lease, this process stopping). */
  | { done: false; at: Date }

/**
 * The side of the kernel's job runner a transport delivers to. Pull transports (inline) ask
 * it to claim due jobs from the database; push transports (BullMQ) hand it the jobs they were
 * signalled, one at a time per slot.
 */
export interface JobTaker {
  /** The job types this process runs. */
  readonly types: readonly string[]
  /** Slots free in this process (concurrency minus runs in flight). */
  free(): number
  /** Resolves once a run in flight ends (a slot frees up). */
  slotFreed(): Promise<void>
  /** Claims up to `count` due jobs of `types` and starts them; answers how many started. */
  takeDue(count: number): Promise<number>
  /** Claims job `id` if it is due and runs it; resolves once the run ended (or when it is not due). */
  take(id: string): Promise<TakeOutcome>
}

/**
 * The queue port: how consumers learn that jobs are due. The jobs themselves (state,
 * attempts, leases, progress, history) live in the database, written by the kernel's jobs
 * module in the same transaction as the work they are about: the database is the truth, a
 * transport only a means. `queue-inline` polls the database (signalling only wakes the local
 * poller); `queue-bullmq` carries signals through Redis to any number of workers, and loses
 * nothing the database holds when Redis does (the reconciler signals waiting jobs again).
 *
 * Guarantees (test/conformance/queue.conformance.ts, run with every transport): a stored job
 * runs until it succeeds or uses its attempts; a run that a crash or a stop cut short runs
 * again; two processes never run the same job at once; a job never stays `running` once
 * nobody runs it.
 */
export interface QueuePort {
  /** Whether `serve` runs jobs (inline: yes by default; BullMQ: no, `mediactl worker` does). */
  readonly consumesInServe: boolean
  /**
   * Whether consumers find due jobs in the database on their own (inline). When false, the
   * reconciler signals every waiting job again now and then: a signal lost with Redis is sent again.
   */
  readonly polls: boolean
  /** Tells consumers of jobs due now or later. Idempotent: signalling a job twice runs it once. */
  signal(jobs: readonly JobSignal[]): Promise<void>
  /** Starts delivering to `taker`, at most `taker.free()` at once, until `stop`. */
  consume(taker: JobTaker): Promise<void>
  /** Stops delivering; resolves once no delivery is under way (or after `graceMs`). */
  stop(graceMs: number): Promise<void>
  /** Releases connections (at the process's end). */
  close(): Promise<void>
  /** Answers whether the transport's backend answers (doctor, readiness), throwing why not. */
  check(): Promise<void>
  /**
   * Calls `listener` each time the transport's backend answers again after it was lost (Redis
   * restarted, perhaps empty): signals sent meanwhile may be gone, so the jobs module signals
   * every waiting job again at once instead of at the next reconciliation. Transports that keep
   * nothing of their own (inline) leave it out.
   */
  onBack?(listener: () => void): void
}
