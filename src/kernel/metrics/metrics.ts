import type { Knex } from '@mikro-orm/knex'
import { Counter, Gauge, Histogram, type Registry, collectDefaultMetrics } from 'prom-client'
import type { RequestObservation } from '../http/app.js'
import { JOB_STATES } from '../jobs/job.types.js'
import type { Jobs } from '../jobs/jobs.js'

/** Methods counted as themselves; any other (a client may send any token) is `other`: bounded labels. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/**
 * The kernel's own Prometheus metrics (prom-client), on the process's registry
 * (metrics-registry.ts, beside the plugins'), served on their own listener (`metrics.port`),
 * never on the API's: every request by method, route pattern and status, the jobs by state
 * and type (read from the database at each scrape), job run durations, what the jobs module
 * counts (reconciled, taken back, signals not sent), the database pool's connections (read
 * at each scrape), and Node's process metrics once served (`collectProcess`). Every metric is
 * listed in docs/operations.md.
 */
export class Metrics {
  private readonly requests: Histogram<'method' | 'route' | 'status_code'>
  private readonly runs: Histogram<'type' | 'outcome'>
  private processCollected = false

  constructor(
    private readonly registry: Registry,
    jobs: Jobs,
    knex: Knex,
  ) {
    this.requests = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP requests, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    })
    this.runs = new Histogram({
      name: 'mediactl_job_run_duration_seconds',
      help: 'Duration of job runs in this process, by job type and outcome.',
      labelNames: ['type', 'outcome'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400],
      registers: [this.registry],
    })
    jobs.onRunEnded((type, outcome, seconds) => this.runs.observe({ type, outcome }, seconds))
    new Gauge({
      name: 'mediactl_jobs',
      help: 'Jobs in the database, by state and type (all processes).',
      labelNames: ['state', 'type'],
      registers: [this.registry],
      // Every HTTP process of `serve --processes N` reads the same rows: the cluster's sum takes one.
      aggregator: 'first',
      async collect() {
        this.reset()
        // Every state of every declared type, 0 when none: an alert on `state="waiting"` and `state="running"`
        // needs both series before the first job exists.
        for (const type of jobs.registry.types()) for (const state of JOB_STATES) this.set({ state, type }, 0)
        for (const { state, type, count } of await jobs.store.counts()) this.set({ state, type }, count)
      },
    })
    const counted = (name: string, help: string, read: () => number): void => {
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset()
          this.inc(read())
        },
      })
    }
    counted(
      'mediactl_jobs_reconciled_total',
      'Jobs this process queued for work that had no live job (reconciler).',
      () => jobs.stats.reconciled,
    )
    counted(
      'mediactl_jobs_taken_back_total',
      'Running jobs this process took back from processes that stopped renewing their lease.',
      () => jobs.stats.takenBack,
    )
    counted(
      'mediactl_job_signal_failures_total',
      'Signals to the queue transport that failed (sent again by the reconciler).',
      () => jobs.stats.signalFailures,
    )
    new Gauge({
      name: 'mediactl_db_pool_connections',
      help: 'Connections of the database pool of this process: used, free, pending (requests waiting for one).',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        this.reset()
        // No pool once the kernel closed it (knex drops it); SQLite's holds its one connection.
        const pool = knex.client.pool
        if (!pool) return
        this.set({ state: 'used' }, pool.numUsed())
        this.set({ state: 'free' }, pool.numFree())
        this.set({ state: 'pending' }, pool.numPendingAcquires())
      },
    })
  }

  /**
   * Starts Node's process metrics (CPU, memory, event loop lag, GC), once: not at boot, as
   * they keep an event loop monitor and a GC observer running, which CLI commands need not pay.
   */
  collectProcess(): void {
    if (this.processCollected) return
    this.processCollected = true
    collectDefaultMetrics({ register: this.registry })
  }

  /** Counts one request (the HTTP pipeline's `observe`). */
  observe(request: RequestObservation): void {
    const method = METHODS.has(request.method) ? request.method : 'other'
    this.requests.observe({ method, route: request.route, status_code: String(request.status) }, request.seconds)
  }
}
