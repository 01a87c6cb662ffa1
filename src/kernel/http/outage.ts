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
/** What ioredis, knex and node-postgres say when they cannot reach their server. */
const MESSAGES =
  /Connection is closed|Connection terminated|Timeout acquiring a connection|Reached the max retries per request|connect ECONNREFUSED|Client has encountered a connection error/

/**
 * Whether `error` (or one of its causes) says a dependency (the database, Redis) could not be
 * reached, rather than that it refused what was asked: such a request answers 503 with
 * `Retry-After`, never 500 (docs/operations.md, When a dependency fails).
 */
export function isOutage(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, name, message } = current as { code?: unknown; name?: unknown; message?: unknown }
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_CODES.test(code))) return true
    if (name === 'MaxRetriesPerRequestError' || name === 'KnexTimeoutError' || name === 'ConnectionException')
      return true
    if (typeof message === 'string' && MESSAGES.test(message)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
