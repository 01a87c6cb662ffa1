import { z } from 'zod'
import { BACKENDS } from './plugin-selection.js'

const logLevel = z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
const positiveInt = z.number().int().positive()
const backend = <R extends keyof typeof BACKENDS>(role: R) =>
  z.enum(
    Object.keys(BACKENDS[role]) as [keyof (typeof BACKENDS)[R] & string, ...(keyof (typeof BACKENDS)[R] & string)[]],
  )

/**
 * The kernel's part of the configuration. Plugin settings live under a top-level key named
 * after the plugin and are validated by the plugin's own schema.
 */
export const kernelConfigSchema = z
  .object({
    /** Folder for the SQLite file, keys, the server secret and local storage. */
    data_dir: z.string().min(1),
    /** Public base URL for every href (scheme://host[:port][/prefix]); empty derives it from http.host and http.port. */
    base_url: z.union([z.literal(''), z.string().url()]),
    /** Minimum level written to the log. */
    log_level: logLevel,
    /** Prometheus metrics, on a listener of their own (never the API's). */
    metrics: z
      .object({
        /** Port of the metrics listener (`GET /metrics`); 0: no metrics. */
        port: z.number().int().min(0).max(65535),
        /** Address the metrics listener binds: keep it private (127.0.0.1 by default). */
        host: z.string().min(1),
      })
      .strict(),
    http: z
      .object({
        /** Interface to listen on. */
        host: z.string().min(1),
        /** TCP port to listen on (0 picks a free one). */
        port: z.number().int().min(0).max(65535),
        /** HTTP processes `serve` runs on the port (node:cluster); 0: one on SQLite, one per CPU core on PostgreSQL. */
        processes: z.number().int().min(0).max(256),
        /** Largest non-upload request body, in bytes. */
        body_limit: positiveInt,
        /** Most form fields in one request. */
        max_fields: positiveInt,
        /** Most entities one list response returns. */
        max_list: positiveInt,
        /** Seconds a graceful shutdown waits for requests in flight. */
        shutdown_timeout: z.number().positive(),
        /** Largest request head (request line and headers), in bytes; 431 beyond. */
        max_header_size: z.number().int().min(1024).max(1048576),
        /** Seconds a client has to send a whole request head (slowloris); 408 and closed beyond. */
        headers_timeout: z.number().positive(),
        /** Seconds a client has to send a whole request, body included; 0: no limit (uploads take long). */
        request_timeout: z.number().min(0),
        /** Seconds a connection may stay silent (no byte either way) before it is closed; 0: never. */
        idle_timeout: z.number().min(0),
        /** Seconds an idle keep-alive connection stays open for the client's next request. */
        keep_alive_timeout: z.number().positive(),
        /**
         * Ignored: the whole-answer cache it sized is gone (docs/decisions/0254). Accepted with a
         * warning for one release, so that configuration files that set it still load.
         */
        answer_cache_mb: z.number().min(0).optional(),
      })
      .strict(),
    database: z
      .object({
        /** Empty (SQLite in the data dir), `sqlite://<path>` or `postgres://...`. */
        url: z.union([
          z.literal(''),
          z.string().regex(/^(sqlite:\/\/|postgres(ql)?:\/\/)/, 'a sqlite:// or postgres:// URL'),
        ]),
        /** Largest number of pooled connections. */
        pool_max: positiveInt,
        /** Seconds to open a connection (PostgreSQL); past it the attempt fails and the request answers 503. */
        connect_timeout: z.number().positive(),
        /**
         * Seconds `serve`, `worker` and `init` wait for the database to answer while they start, retrying with
         * backoff (`/health` answers, `/ready` says 503); past it they exit with code 69 naming it.
         */
        connect_wait: z.number().min(0),
        /** Seconds a request waits for a free pooled connection (PostgreSQL) before it answers 503. */
        acquire_timeout: z.number().positive(),
        /**
         * Seconds one SQL statement may run before PostgreSQL cancels it (the request answers 503);
         * 0: no limit. Migrations are exempt.
         */
        statement_timeout: z.number().min(0),
        /** Logs SQL statements at debug level. */
        debug: z.boolean(),
      })
      .strict(),
    auth: z
      .object({
        /** Digest realm. */
        realm: z
          .string()
          .min(1)
          .max(128)
          .regex(/^[^"\\]+$/, 'text without double quotes or backslashes'),
        /** Nonce lifetime, in seconds. */
        nonce_ttl: positiveInt,
        /** Server secret; empty reads <data_dir>/secret. */
        secret: z.string(),
      })
      .strict(),
    /** Background jobs (the queue port): how each process runs them and how failures are retried. */
    jobs: z
      .object({
        /** Most jobs one process runs at once; 0: one per two CPU cores, at least 1. */
        concurrency: z.number().int().min(0),
        /** Runs a job gets before it stays failed (a plugin may ask for another number per job). */
        max_attempts: z.number().int().min(1).max(100),
        /** Seconds before the first retry of a failed run; each further retry waits twice as long. */
        backoff: z.number().positive(),
        /** Seconds one run may last; then its signal aborts and the run counts as failed. */
        time_limit: z.number().positive(),
        /**
         * Seconds a running job's lease lasts, renewed every third of it (the heartbeat). Past it,
         * any process takes the job back: the longest a killed process's jobs wait.
         */
        lease: z.number().min(1).max(3600),
        /** Seconds between two reconciliations: stranded runs taken back, unscheduled work queued, signals sent again. */
        reconcile_interval: z.number().min(1).max(86400),
        /** Seconds finished (succeeded, failed, cancelled) jobs stay listed; 0: forever. */
        keep_finished: z.number().int().min(0),
        /** On SIGTERM: `requeue` running jobs at once (aborted, run again later), or `wait` for them within http.shutdown_timeout. */
        shutdown: z.enum(['requeue', 'wait']),
      })
      .strict(),
    /** How answers are written for clients. */
    api: z
      .object({
        /** Date-times in answers: `iso8601` (the specification) or `unix` (seconds, as the original service answered). */
        timestamps: z.enum(['iso8601', 'unix']),
      })
      .strict(),
    /** Redis URL shared by the plugins that use Redis (state-redis, queue backends); empty: none. */
    redis_url: z.union([z.literal(''), z.string().regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')]),
    /** Seconds `serve` and `worker` wait for Redis to answer while they start (when a plugin uses it); past it they exit with code 69. */
    redis_connect_wait: z.number().min(0),
    /** The job queue backend: `inline` (the database, polled) or `bullmq` (signalled through Redis); unset: as `plugins` says. */
    queue: backend('queue').optional(),
    /** Where file bytes live: `fs` (local disk) or `s3` (an S3-compatible bucket); unset: as `plugins` says. */
    storage: backend('storage').optional(),
    /**
     * Where Digest nonce counts and upload locks are kept: `database` (the default: seen by every process of every
     * machine), `memory` (one process only: `serve` then refuses several HTTP processes) or `redis` (the state-redis
     * plugin). Unset: `database`, unless `plugins` enables state-redis.
     */
    state: backend('state').optional(),
    /**
     * The enabled plugins: a list replaces the whole set; a mapping with `enable` and `disable`
     * lists changes the default set (or the set an earlier layer chose).
     */
    plugins: z.array(z.string().min(1)).min(1),
  })
  .passthrough()

export type KernelConfig = z.infer<typeof kernelConfigSchema>

/** The whole configuration: the kernel's keys plus one raw slice per plugin. */
export type Config = KernelConfig & Record<string, unknown>
