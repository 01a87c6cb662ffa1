import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { Job, type JobJsonRaw, type JobsOptions, Queue, UnrecoverableError, WaitingError, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import {
  PollLoop,
  type EnqueueOptions,
  JOB_STATES,
  type JobContext,
  type JobHandler,
  type JobRecord,
  type JobState,
  type Logger,
  type QueuePort,
  type StartOptions,
  type StopOptions,
} from '../../src/kernel/index.js'
import { type BullmqState, SETS, STATE_OF, bullmqId, publicId, queueName, toRecord } from './bullmq-records.js'

/** Runs allowed when `enqueue` is given no `maxAttempts` (`ctx.enqueue` always passes `jobs.max_attempts`). */
export const DEFAULT_MAX_ATTEMPTS = 3
/** Largest payload, as JSON text: payloads carry ids, not data. */
export const MAX_PAYLOAD_BYTES = 64 * 1024
/** Longest wait between two runs of a failing job, whatever the backoff doubling gives. */
const MAX_BACKOFF_MS = 24 * 3600 * 1000
/** Progress is stored at most this often per run (and only once it moved by 1 or more). */
const PROGRESS_EVERY_MS = 500
/** Progress is logged (info) each time a run passes a multiple of this. */
const PROGRESS_LOG_STEP = 25
/** Longest `lastError` kept, in characters. */
const MAX_ERROR_LENGTH = 4000
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1
/** Jobs fetched at once by `list`. */
const LIST_BATCH = 200
/** The backoff type jobs are queued with: the consuming process computes the delay from `jobs.backoff`. */
const BACKOFF_TYPE = 'mediactl'
/**
 * Stall recoveries before BullMQ fails a job on its own. High: the attempts rule decides instead
 * (a run a crash interrupted counts, and a job whose last attempt was interrupted fails).
 */
const MAX_STALLED = 1000
/** Gives back the attempt of a run this process holds the lock of (a drain's run does not count). */
const GIVE_BACK_ATTEMPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('HINCRBY', KEYS[2], 'ats', -1) end
return -1`
/** The keys READ_JOB takes: the job's hash (''), then the sets it looks for the job in, in this order. */
const READ_JOB_KEYS = [
  '',
  'completed',
  'failed',
  'delayed',
  'prioritized',
  'waiting-children',
  'active',
  'wait',
  'paused',
]
/** A job's hash and state in one atomic step: `{state, delayed score or '', hash fields}`, or `{}`. */
const READ_JOB = `local id = ARGV[1]
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
local function listed(key)
  local pos = redis.pcall('LPOS', key, id)
  if type(pos) ~= 'table' then return pos ~= false end
  for _, item in ipairs(redis.call('LRANGE', key, 0, -1)) do
    if item == id then return true end
  end
  return false
end
local state, score = 'unknown', ''
if redis.call('ZSCORE', KEYS[2], id) then state = 'completed'
elseif redis.call('ZSCORE', KEYS[3], id) then state = 'failed'
else
  local due = redis.call('ZSCORE', KEYS[4], id)
  if due then state, score = 'delayed', due
  elseif redis.call('ZSCORE', KEYS[5], id) then state = 'prioritized'
  elseif redis.call('ZSCORE', KEYS[6], id) then state = 'waiting-children'
  elseif listed(KEYS[7]) then state = 'active'
  elseif listed(KEYS[8]) then state = 'wait'
  elseif listed(KEYS[9]) then state = 'paused'
  end
end
return {state, score, fields}`
/** Deletes a key only while it still holds the value read (a dedupe key naming a job that is gone). */
const DELETE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

export interface BullmqQueueOptions {
  /** Redis URL (redis:// or rediss://). */
  url: string
  /** BullMQ key prefix (`queue-bullmq.prefix`). */
  prefix: string
  /** Name of the installation's queues (`queue-bullmq.queue`). */
  queue: string
  log: Logger
  /** Whether `serve` runs the jobs too (`queue-bullmq.consume_in_serve`). */
  consumesInServe: boolean
  /** Milliseconds between two looks for due jobs while consuming. */
  pollIntervalMs: number
  /** Milliseconds a running job's lock lasts (BullMQ lockDuration); renewed every half of it. */
  leaseMs: number
  /** Milliseconds between two stall checks (BullMQ stalledInterval). */
  stalledIntervalMs: number
  /** Milliseconds succeeded jobs are kept; 0: forever. */
  keepSucceededMs: number
}

/** Raised when a job cannot be queued or retried as asked. */
export class JobQueueError extends Error {
  override name = 'JobQueueError'
}

/** One run of a job in this process. */
interface Run {
  /** BullMQ's id (`j<n>`). */
  jobId: string
  /** The port's id (`<n>`). */
  id: string
  type: string
  maxAttempts: number
  controller: AbortController
  /** Settles once BullMQ recorded the outcome (or gave up). */
  done: Promise<void>
  /** The highest progress reported, the one stored, and the last one logged. */
  progress: number
  stored: number
  logged: number
  lastWrite: number
  progressTimer?: NodeJS.Timeout
  write?: Promise<void>
  timeLimit?: NodeJS.Timeout
  /** Why the signal was aborted, if it was. */
  aborted?: 'stop' | 'time-limit' | 'lost'
  /** No more progress writes: the outcome is being recorded, or `stop` gave up waiting. */
  finished: boolean
  abandoned: boolean
}

/** The READ_JOB command, defined on the producer connection. */
type ReadJob = { mediactlReadJob(numberOfKeys: number, ...args: string[]): Promise<unknown> }

type Loaded = { type: string; queue: Queue; job: Job; record: JobRecord }

/**
 * A BullMQ worker driven by `BullmqQueue` instead of its own fetch loop: one process-wide
 * concurrency limit spans the workers of every job type, so jobs are fetched one at a time when
 * a slot is free (`getNextJob`) and run with `processJob`, which keeps BullMQ's lock renewal,
 * retries and backoff. `run()` would start the lock renewal with its loop; this starts it alone.
 */
class ConsumingWorker extends Worker {
  renewLocks(): void {
    this.lockManager.start()
  }
}

/**
 * The Redis queue: each job type is a BullMQ queue (`<prefix>:<queue>/<type>:...`), so a
 * process only ever takes jobs of the types it runs. Ids come from one counter for the
 * installation (`<prefix>:<queue>:seq`, the BullMQ job id being `j<n>`), which orders `list`
 * across types; `<prefix>:<queue>:types` lists the types ever queued. Consumers (`start`) poll
 * each type's queue for a due job while a slot is free. See docs/decisions.md, queue-bullmq.
 */
export class BullmqQueue implements QueuePort {
  readonly consumesInServe: boolean
  private readonly log: Logger
  /** Names this process's worker in BullMQ (`processedBy`). */
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  private producerConnection: Redis | undefined
  private consumer: Redis | undefined
  private readonly queues = new Map<string, Queue>()
  private handlers = new Map<string, JobHandler>()
  private startOptions: StartOptions | undefined
  private readonly workers = new Map<string, ConsumingWorker>()
  private readonly running = new Map<string, Run>()
  private started = false
  private stopping = false
  private stopped: Promise<void> | undefined
  private readonly loop: PollLoop
  /** Which type's queue a look starts with, so that no type waits behind a busy one. */
  private turn = 0
  private tokens = 0
  private failing = false
  /** When each warning was last logged. */
  private readonly warned = new Map<string, number>()

  constructor(private readonly options: BullmqQueueOptions) {
    this.loop = new PollLoop(
      () => this.look(),
      options.pollIntervalMs,
      () => this.started && !this.stopping,
    )
    this.log = options.log
    this.consumesInServe = options.consumesInServe
  }

  /** The connection for queueing and reading, opened on first use (a CLI command that never queues never connects). */
  private get producer(): Redis {
    if (!this.producerConnection) {
      // Fail fast while Redis is unreachable: an upload queueing its encoding gets an error, not a hang.
      this.producerConnection = new Redis(this.options.url, { maxRetriesPerRequest: 2 })
      this.producerConnection.on('error', (error: Error) => this.connectionError(error))
      // Sent once, then run by its hash (EVALSHA): `list` runs it for every job it answers.
      this.producerConnection.defineCommand('mediactlReadJob', { lua: READ_JOB })
    }
    return this.producerConnection
  }

  private get seqKey(): string {
    return `${this.options.prefix}:${this.options.queue}:seq`
  }

  private get typesKey(): string {
    return `${this.options.prefix}:${this.options.queue}:types`
  }

  /** ioredis and BullMQ report every failed reconnection, from every connection: one line a minute per message. */
  private connectionError(error: Error, fields: Record<string, unknown> = {}): void {
    const now = Date.now()
    const message = error.message || error.name
    if (now - (this.warned.get(message) ?? 0) < 60_000) return
    this.warned.set(message, now)
    if (this.warned.size > 100) this.warned.clear()
    this.log.warn({ ...fields, err: message }, 'redis error (job queue)')
  }

  /** Runs a producer-side operation; an unreachable Redis is reported as such, with its address. */
  private async reaching<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if (!isConnectionError(error)) throw error
      throw new Error(
        `the job queue cannot reach Redis at ${new URL(this.options.url).host}: ${(error as Error).message}`,
        { cause: error },
      )
    }
  }

  private queueOf(type: string): Queue {
    let queue = this.queues.get(type)
    if (!queue) {
      queue = new Queue(queueName(this.options.queue, type), { connection: this.producer, prefix: this.options.prefix })
      queue.on('error', (error: Error) => this.connectionError(error))
      this.queues.set(type, queue)
    }
    return queue
  }

  enqueue(type: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<JobRecord> {
    return this.reaching(() => this.enqueueNow(type, payload, options))
  }

  list(filter: { state?: JobState; limit?: number } = {}): Promise<JobRecord[]> {
    return this.reaching(() => this.listNow(filter))
  }

  retry(id: string): Promise<JobRecord | null> {
    return this.reaching(() => this.retryNow(id))
  }

  private async enqueueNow(
    type: string,
    payload: Record<string, unknown>,
    options: EnqueueOptions,
  ): Promise<JobRecord> {
    if (typeof type !== 'string' || !type || type.length > 128) {
      throw new JobQueueError('a job type is 1 to 128 characters')
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new JobQueueError(`the payload of a "${type}" job must be a JSON object`)
    }
    const json = JSON.stringify(payload)
    if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) {
      throw new JobQueueError(`the payload of a "${type}" job is larger than ${MAX_PAYLOAD_BYTES} bytes of JSON`)
    }
    const key = options.key ?? null
    if (key !== null && (typeof key !== 'string' || !key || key.length > 255)) {
      throw new JobQueueError('a job key is 1 to 255 characters')
    }
    const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) {
      throw new JobQueueError('maxAttempts is an integer from 1 to 100')
    }
    const queue = this.queueOf(type)
    const keep = this.options.keepSucceededMs
    for (;;) {
      // The type is recorded with every job (not once per process): the set must hold it even if
      // Redis lost it (a restart without persistence, a failover), or `list` and `get` miss the job.
      const [recorded, counted] = (await this.producer.multi().sadd(this.typesKey, type).incr(this.seqKey).exec()) ?? []
      if (recorded?.[0] || counted?.[0]) throw recorded?.[0] ?? counted![0]
      const jobId = bullmqId(String(counted![1]))!
      // BullMQ answers an existing job for an id in use instead of adding one: skip ids a counter
      // that went back (Redis restored from an older state) hands out again.
      if (await this.producer.exists(queue.toKey(jobId))) continue
      const opts: JobsOptions = {
        jobId,
        attempts: maxAttempts,
        backoff: { type: BACKOFF_TYPE },
        // Evicted when a later job of the type completes (BullMQ's way); failed jobs stay for the operator.
        removeOnComplete: keep > 0 ? { age: Math.ceil(keep / 1000) } : false,
        removeOnFail: false,
        stackTraceLimit: 1,
        // BullMQ's dedupe: the key is set with the job and deleted when it completes or fails.
        ...(key !== null ? { deduplication: { id: key } } : {}),
      }
      // The payload as stored (JSON): the record answered now equals the one read later.
      const job = await queue.add(type, JSON.parse(json) as Record<string, unknown>, opts)
      if (job.id === jobId) return toRecord(job, 'waiting')
      // A live job holds the key: answer it. If it finished meanwhile, the key is free: queue again.
      const live = await this.load(type, job.id!)
      if (live && (live.record.state === 'waiting' || live.record.state === 'running')) return live.record
      if (!live) await this.producer.eval(DELETE_IF, 1, queue.toKey(`de:${key}`), job.id!)
    }
  }

  private async listNow(filter: { state?: JobState; limit?: number }): Promise<JobRecord[]> {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 1), 10_000)
    if (filter.state !== undefined && !JOB_STATES.includes(filter.state)) {
      throw new JobQueueError(`unknown job state "${String(filter.state)}": ${JOB_STATES.join(', ')}`)
    }
    const types = await this.producer.smembers(this.typesKey)
    const states = filter.state ? [filter.state] : JOB_STATES
    const found = new Map<string, { n: number; type: string }>()
    for (const type of types) {
      const queue = this.queueOf(type)
      // One transaction per type: a job moving between states is seen in one of them.
      const multi = this.producer.multi()
      const sets = states.flatMap((state) => SETS[state])
      for (const set of sets) {
        if (set.sorted) multi.zrange(queue.keys[set.name]!, 0, -1)
        else multi.lrange(queue.keys[set.name]!, 0, -1)
      }
      for (const [error, ids] of (await multi.exec()) ?? []) {
        if (error) throw error
        for (const jobId of ids as string[]) {
          const n = Number(publicId(jobId))
          if (n) found.set(jobId, { n, type })
        }
      }
    }
    const newest = [...found].sort(([, a], [, b]) => b.n - a.n)
    const records: JobRecord[] = []
    for (let i = 0; i < newest.length && records.length < limit; i += LIST_BATCH) {
      const batch = await Promise.all(
        newest.slice(i, i + LIST_BATCH).map(([jobId, { type }]) => this.load(type, jobId)),
      )
      for (const loaded of batch) {
        // Left out: a job removed since the look (an old succeeded one), or one that changed state.
        if (!loaded || (filter.state && loaded.record.state !== filter.state)) continue
        if (records.length < limit) records.push(loaded.record)
      }
    }
    return records
  }

  get(id: string): Promise<JobRecord | null> {
    return this.reaching(async () => (await this.locate(id))?.record ?? null)
  }

  private async retryNow(id: string): Promise<JobRecord | null> {
    for (;;) {
      const found = await this.locate(id)
      if (!found) return null
      const { type, queue, job, record } = found
      if (record.state !== 'failed') {
        throw new JobQueueError(`job ${id} is ${record.state}, not failed: only failed jobs can be retried`)
      }
      if (record.key !== null) {
        // The job takes its key back, unless another live job holds it (the same work queued again since).
        const dedupe = queue.toKey(`de:${record.key}`)
        if ((await this.producer.set(dedupe, job.id!, 'NX')) === null) {
          const holder = await this.producer.get(dedupe)
          if (holder !== null && holder !== job.id) {
            const live = await this.load(type, holder)
            if (live && (live.record.state === 'waiting' || live.record.state === 'running')) {
              throw new JobQueueError(
                `job ${live.record.id} with the same key "${record.key}" is ${live.record.state}: it does the work already`,
              )
            }
            // The key names a finished or vanished job: free it and look again.
            await this.producer.eval(DELETE_IF, 1, dedupe, holder)
            continue
          }
        }
      }
      try {
        await job.updateProgress(0)
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true })
      } catch (error) {
        // Another process retried it first: report what it is now.
        const now = await this.load(type, job.id!)
        if (now && now.record.state !== 'failed') return now.record
        throw error
      }
      this.wake()
      return (await this.load(type, job.id!))?.record ?? null
    }
  }

  /** A job by the port's id: its type is found by looking for its key in each type's queue. */
  private async locate(id: string): Promise<Loaded | null> {
    const jobId = bullmqId(id)
    if (!jobId) return null
    const types = await this.producer.smembers(this.typesKey)
    if (!types.length) return null
    const pipeline = this.producer.pipeline()
    for (const type of types) pipeline.exists(this.queueOf(type).toKey(jobId))
    const results = (await pipeline.exec()) ?? []
    const index = results.findIndex(([error, exists]) => !error && exists === 1)
    return index < 0 ? null : this.load(types[index]!, jobId)
  }

  /** A job and its state, read at once (a job read in two steps may have moved between them). */
  private async load(type: string, jobId: string): Promise<Loaded | null> {
    const queue = this.queueOf(type)
    const keys = READ_JOB_KEYS.map((name) => (name === '' ? queue.toKey(jobId) : queue.keys[name]!))
    const read = (this.producer as unknown as ReadJob).mediactlReadJob
    const [raw, score, fields] = (await read.call(this.producer, keys.length, ...keys, jobId)) as
      [BullmqState | 'unknown', string, string[]] | []
    const state = raw && raw !== 'unknown' ? STATE_OF[raw] : undefined
    if (!state || !fields) return null
    const json: Record<string, string> = {}
    for (let i = 0; i < fields.length; i += 2) json[fields[i]!] = fields[i + 1]!
    const job = Job.fromJSON(queue, json as unknown as JobJsonRaw, jobId)
    // A delayed job's score is its due time in milliseconds · 4096 (BullMQ's ordering).
    const runAfter = raw === 'delayed' && score ? Math.floor(Number(score) / 0x1000) : undefined
    return { type, queue, job, record: toRecord(job, state, runAfter) }
  }

  async start(handlers: ReadonlyMap<string, JobHandler>, options: StartOptions): Promise<void> {
    if (this.started) throw new Error('the queue is already started')
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error('concurrency is an integer of at least 1')
    }
    this.handlers = new Map(handlers)
    this.startOptions = options
    this.started = true
    this.stopping = false
    // Workers need a connection that retries commands forever (BullMQ refuses one that gives up).
    const consumer = new Redis(this.options.url, { maxRetriesPerRequest: null })
    consumer.on('error', (error: Error) => this.connectionError(error))
    this.consumer = consumer
    for (const type of this.handlers.keys()) {
      const worker = new ConsumingWorker(
        queueName(this.options.queue, type),
        (job, token) => this.execute(job, token!),
        {
          connection: consumer,
          prefix: this.options.prefix,
          autorun: false,
          name: this.owner,
          lockDuration: this.options.leaseMs,
          stalledInterval: this.options.stalledIntervalMs,
          maxStalledCount: MAX_STALLED,
          settings: { backoffStrategy: (made, _type, _error, job) => this.backoff(made, job as Job | undefined) },
        },
      )
      worker.on('error', (error: Error) => this.connectionError(error, { type }))
      worker.on('lockRenewalFailed', (ids: string[]) => {
        for (const jobId of ids) {
          const run = this.running.get(jobId)
          if (!run) continue
          this.log.warn({ job: run.id }, 'the lock of a running job was lost; aborting it here')
          this.abort(run, 'lost', new Error('the job was taken back by another process (its lock expired)'))
        }
      })
      worker.renewLocks()
      await worker.startStalledCheckTimer()
      this.workers.set(type, worker)
    }
    this.wake()
  }

  /** `jobs.backoff · 2^(n-1)` after the n-th run (crashed runs included), at most a day. */
  private backoff(attemptsMade: number, job: Job | undefined): number {
    const attempt = Math.max(job?.attemptsStarted ?? attemptsMade, 1)
    return Math.min(this.startOptions!.backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS)
  }

  stop(options: StopOptions = {}): Promise<void> {
    if (!this.started) return Promise.resolve()
    // A second call while stopping waits for the same stop.
    this.stopped ??= this.drain(options).finally(() => (this.stopped = undefined))
    return this.stopped
  }

  private async drain(options: StopOptions): Promise<void> {
    this.stopping = true
    const halted = this.loop.halt()
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<false>(
      (resolve) => (timer = setTimeout(() => resolve(false), options.graceMs ?? 10_000)),
    )
    // A look in progress may be fetching jobs: let it finish, so its runs are aborted too. Not
    // beyond the grace: with Redis unreachable, it waits for a connection that may never come.
    await Promise.race([halted, expired])
    const runs = [...this.running.values()]
    for (const run of runs) this.abort(run, 'stop', new Error('the process is stopping; the job runs again later'))
    const settled =
      !runs.length || (await Promise.race([Promise.all(runs.map((run) => run.done)).then(() => true), expired]))
    clearTimeout(timer)
    const left = [...this.running.values()]
    if (!settled && left.length) {
      for (const run of left) {
        run.abandoned = true
        clearTimeout(run.timeLimit)
        clearTimeout(run.progressTimer)
      }
      this.log.warn(
        { jobs: left.map((run) => run.id) },
        'jobs did not stop in time; they run again elsewhere once their lock expires',
      )
    }
    // Closing stops the lock renewal: the locks of abandoned runs expire and the stall check takes them back.
    // Forced: the runs are settled or given up already, and a graceful QUIT would wait for an unreachable Redis.
    await Promise.all([...this.workers.values()].map((worker) => worker.close(true).catch(() => undefined)))
    this.workers.clear()
    this.consumer?.disconnect()
    this.consumer = undefined
    this.running.clear()
    this.started = false
    this.stopping = false
  }

  /** Stops consuming (if started) and closes every connection; the plugin's `onStop`. */
  async close(): Promise<void> {
    await this.stop()
    await Promise.all([...this.queues.values()].map((queue) => withTimeout(queue.close(), 1000).catch(() => undefined)))
    this.queues.clear()
    const producer = this.producerConnection
    this.producerConnection = undefined
    // QUIT lets replies in flight arrive; an unreachable Redis gets a second, then the connection is dropped.
    if (producer) await withTimeout(producer.quit(), 1000).catch(() => undefined)
    producer?.disconnect()
  }

  /** Looks for due jobs soon (see PollLoop). */
  private wake(): void {
    this.loop.wake()
  }

  /** One look: while a slot is free, takes a due job from each type's queue in turn, until none has one. */
  private async look(): Promise<void> {
    try {
      const workers = [...this.workers.values()]
      const full = (): boolean => this.stopping || this.running.size >= this.startOptions!.concurrency
      let took = true
      while (took && !full()) {
        took = false
        this.turn = (this.turn + 1) % workers.length
        for (let i = 0; i < workers.length && !full(); i++) {
          const worker = workers[(this.turn + i) % workers.length]!
          const token = `${worker.id}:${++this.tokens}`
          // Moves the next due job (promoting the delayed ones whose time came) to active, locked with the token.
          const job = await worker.getNextJob(token, { block: false })
          if (!job) continue
          if (!this.started || this.stopping) {
            // Fetched while the drain began: back to waiting, the attempt given back (else its lock expires).
            await this.giveBackAttempt(job, token)
              .then(() => job.moveToWait(token))
              .catch(() => undefined)
            return
          }
          this.run(worker, job, token)
          took = true
        }
      }
      if (this.failing) this.log.info('the job queue reaches Redis again')
      this.failing = false
    } catch (error) {
      if (!this.failing) this.log.error({ err: error }, 'the job queue cannot reach Redis; it keeps trying')
      this.failing = true
    }
  }

  private run(worker: ConsumingWorker, job: Job, token: string): void {
    const jobId = job.id!
    const run: Run = {
      jobId,
      id: publicId(jobId) ?? jobId,
      type: job.name,
      maxAttempts: job.opts.attempts ?? DEFAULT_MAX_ATTEMPTS,
      controller: new AbortController(),
      done: Promise.resolve(),
      progress: 0,
      stored: 0,
      logged: 0,
      lastWrite: 0,
      finished: false,
      abandoned: false,
    }
    this.running.set(jobId, run)
    // processJob runs `execute`, then records the outcome (completed, retried after the backoff,
    // failed), retrying the recording itself while Redis is unreachable.
    run.done = worker
      .processJob(job, token, () => false)
      .then(
        () => undefined,
        (error: unknown) => this.log.error({ err: error, job: run.id }, 'could not record the outcome of a job'),
      )
      .finally(() => {
        if (this.running.get(jobId) === run) this.running.delete(jobId)
        this.wake()
      })
  }

  /** BullMQ's processor: runs the handler; resolving completes the job, throwing retries or fails it. */
  private async execute(job: Job, token: string): Promise<void> {
    const run = this.running.get(job.id!)
    const handler = this.handlers.get(job.name)
    if (!run || !handler) {
      await job.moveToWait(token)
      throw new WaitingError()
    }
    const fields = { job: run.id, type: run.type, attempt: job.attemptsStarted }
    if (job.attemptsStarted > run.maxAttempts) {
      // Its last attempt was cut short by a crash: the job may be what crashes processes, so it stops here.
      run.finished = true
      await this.giveBackAttempt(job, token)
      const message = 'interrupted: the process running it stopped'
      this.log.error({ ...fields, attempt: run.maxAttempts, err: message }, 'job failed')
      throw new UnrecoverableError(message)
    }
    // Progress is that of the current run.
    if (Number(job.progress) > 0) await job.updateProgress(0)
    const { timeLimitMs } = this.startOptions!
    run.timeLimit = setTimeout(
      () => this.abort(run, 'time-limit', new Error(`time limit of ${timeLimitMs / 1000} s passed`)),
      Math.min(timeLimitMs, MAX_TIMER_MS),
    )
    const context: JobContext = {
      id: run.id,
      type: run.type,
      payload: job.data as Record<string, unknown>,
      attempt: job.attemptsStarted,
      signal: run.controller.signal,
      progress: (percent) => {
        this.report(run, job, percent)
        return Promise.resolve()
      },
    }
    this.log.info(fields, 'job started')
    let failure: { error: unknown } | undefined
    try {
      await handler(context)
    } catch (error) {
      failure = { error }
    }
    clearTimeout(run.timeLimit)
    run.finished = true
    clearTimeout(run.progressTimer)
    await run.write
    // Given up by `stop`, or taken back by another process: nothing is recorded from here.
    if (run.abandoned || run.aborted === 'lost') throw new WaitingError()
    if (!failure) {
      this.log.info(fields, 'job succeeded')
      return
    }
    if (run.aborted === 'stop') {
      // Cut short by a drain: not the job's fault, so the run does not count.
      await this.giveBackAttempt(job, token)
      await job.moveToWait(token)
      this.log.info(fields, 'job put back')
      throw new WaitingError()
    }
    const message = (
      run.aborted === 'time-limit' ? String((run.controller.signal.reason as Error).message) : errorText(failure)
    ).slice(0, MAX_ERROR_LENGTH)
    if (job.attemptsStarted >= run.maxAttempts) {
      this.log.error({ ...fields, err: message }, 'job failed')
      throw new UnrecoverableError(message)
    }
    this.log.warn({ ...fields, err: message }, 'job run failed; retrying')
    throw new Error(message)
  }

  /** Takes one off the job's started runs, while this process holds its lock. */
  private async giveBackAttempt(job: Job, token: string): Promise<void> {
    const jobKey = `${this.options.prefix}:${queueName(this.options.queue, job.name)}:${job.id!}`
    await this.consumer?.eval(GIVE_BACK_ATTEMPT, 2, `${jobKey}:lock`, jobKey, token)
  }

  private abort(run: Run, why: NonNullable<Run['aborted']>, reason: Error): void {
    if (run.aborted || run.finished) return
    run.aborted = why
    run.controller.abort(reason)
  }

  /** Keeps the highest progress of a run; stored at most every PROGRESS_EVERY_MS, in the background. */
  private report(run: Run, job: Job, percent: number): void {
    if (typeof percent !== 'number' || Number.isNaN(percent)) return
    const value = Math.min(100, Math.max(0, percent))
    if (value <= run.progress) return
    run.progress = value
    if (Math.floor(value / PROGRESS_LOG_STEP) > Math.floor(run.logged / PROGRESS_LOG_STEP) && value < 100) {
      run.logged = value
      this.log.info({ job: run.id, type: run.type, progress: Math.round(value) }, 'job progress')
    }
    this.scheduleProgress(run, job)
  }

  private scheduleProgress(run: Run, job: Job): void {
    if (run.finished || run.abandoned || run.aborted === 'lost' || run.progressTimer || run.write) return
    if (run.progress - run.stored < 1 && !(run.progress === 100 && run.stored < 100)) return
    const wait = Math.max(0, run.lastWrite + PROGRESS_EVERY_MS - Date.now())
    run.progressTimer = setTimeout(() => {
      run.progressTimer = undefined
      if (run.finished || run.abandoned || run.aborted === 'lost') return
      const value = run.progress
      run.lastWrite = Date.now()
      // One write at a time per run, each higher than the last: the stored value never goes down.
      run.write = job
        .updateProgress(value)
        .then(() => {
          run.stored = value
        })
        .catch((error: unknown) => this.log.warn({ err: error, job: run.id }, 'progress not stored'))
        .finally(() => {
          run.write = undefined
          this.scheduleProgress(run, job)
        })
    }, wait)
  }
}

/** Whether an error says Redis could not be reached (rather than refusing what was asked). */
function isConnectionError(error: unknown): boolean {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string }
  return (
    name === 'MaxRetriesPerRequestError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(code ?? '') ||
    /Connection is closed/.test(message ?? '')
  )
}

/** Resolves or rejects as `promise` does, or rejects after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function errorText(failure: { error: unknown }): string {
  const error = failure.error
  const text = error instanceof Error ? error.message || error.name : String(error)
  return text || 'the handler failed without a message'
}
