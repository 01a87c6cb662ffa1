/** Socket and DNS codes of a dependency that cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
])
/** PostgreSQL's connection failures (class 08) and a server shutting down or starting (57P01-57P03). */
const POSTGRES_CODES = /^(08\d{3}|57P0[1-3])$/
/** PostgreSQL's query_canceled: a statement past `statement_timeout` (or cancelled by an administrator). */
const CANCELLED_CODE = '57014'
/**
 * What node-postgres and knex say when they cannot reach the database: the server closed the
 * connection, no connection could be opened in time (`timeout expired`; `timeout exceeded
 * when trying to connect` from pg-pool), none was free in time, or the server left a
 * statement unanswered past its read timeout (`query_timeout`: the connection is dead).
 */
const DATABASE_MESSAGES =
  /Connection terminated|^timeout expired$|timeout exceeded when trying to connect|Timeout acquiring a connection|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable/
const DATABASE_NAMES = new Set(['KnexTimeoutError', 'ConnectionException'])
/** What ioredis says when it cannot reach its server. */
const REDIS_MESSAGES = /Connection is closed|Reached the max retries per request|Stream isn't writeable/
const REDIS_NAMES = new Set(['MaxRetriesPerRequestError'])
/** The network failures ioredis or node-postgres report in their messages without a code. */
const NETWORK_MESSAGES = /connect ECONNREFUSED/

/** The dependency an error was marked with (`markDependency`), where it comes from. */
const DEPENDENCY = 'dependency'

interface ErrorLike {
  code?: unknown
  name?: unknown
  message?: unknown
  cause?: unknown
  [DEPENDENCY]?: unknown
}

/** `error` and its causes, five at most. */
function* chain(error: unknown): Generator<ErrorLike> {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current as ErrorLike
    current = (current as ErrorLike).cause
  }
}

/** Which dependency an error says is unreachable (undefined: none that is known, or not an outage). */
function unreachable(error: ErrorLike): 'database' | 'redis' | 'unknown' | undefined {
  const { code, name, message } = error
  const text = typeof message === 'string' ? message : ''
  if ((typeof code === 'string' && POSTGRES_CODES.test(code)) || DATABASE_NAMES.has(name as string)) return 'database'
  if (DATABASE_MESSAGES.test(text)) return 'database'
  if (REDIS_NAMES.has(name as string) || REDIS_MESSAGES.test(text)) return 'redis'
  if ((typeof code === 'string' && NETWORK_CODES.has(code)) || NETWORK_MESSAGES.test(text)) return 'unknown'
  return undefined
}

/**
 * Whether `error` (or one of its causes) says a dependency (the database, Redis) could not be
 * reached, rather than that it refused what was asked: such a request answers 503 with
 * `Retry-After`, never 500 (docs/operations.md, When a dependency fails).
 */
export function isOutage(error: unknown): boolean {
  for (const current of chain(error)) if (unreachable(current)) return true
  return false
}

/**
 * The dependency an outage is of, for its log lines: `database`, `redis`, or `a dependency`
 * when the error does not tell (a refused connection with nothing marking whose it was).
 */
export function outageOf(error: unknown): string {
  let found: string | undefined
  for (const current of chain(error)) {
    if (typeof current[DEPENDENCY] === 'string') return current[DEPENDENCY]
    const which = unreachable(current)
    if (which && which !== 'unknown') found ??= which
  }
  return found ?? 'a dependency'
}

/**
 * Marks `error` as coming from `dependency` (the database pool marks what it throws), so the
 * outage log names it even when the error alone does not (a refused connection). Returns it.
 */
export function markDependency<E>(error: E, dependency: string): E {
  if (error && typeof error === 'object' && !(DEPENDENCY in error)) {
    Object.defineProperty(error, DEPENDENCY, { value: dependency, writable: true, configurable: true })
  }
  return error
}

/**
 * Whether the database cancelled a statement of the request (`statement_timeout`, or an
 * administrator's `pg_cancel_backend`): not an outage, but worth a retry, so 503 too.
 */
export function isCancelledStatement(error: unknown): boolean {
  for (const current of chain(error)) if (current.code === CANCELLED_CODE) return true
  return false
}
