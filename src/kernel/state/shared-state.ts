import { type DatabaseTarget } from '../db/orm.js'
import type { Logger } from '../log.js'
import type { PortRegistry } from '../ports.js'
import type { LocksPort } from '../ports/locks.port.js'
import type { NonceCounterPort } from '../ports/nonce-counter.port.js'
import { DatabaseLocks } from './database-locks.js'
import { DatabaseNonceCounter } from './database-nonce-counter.js'
import { MemoryLocks } from './memory-locks.js'
import { MemoryNonceCounter } from './memory-nonce-counter.js'
import { type StateTimeouts, openStateSql } from './state-sql.js'

/** The kernel's own adapters of shared state: `state: database` (the default) or `state: memory`. */
export type KernelState = 'database' | 'memory'

/** The nonce counts and locks the kernel provides when no plugin (state-redis) does. */
export interface SharedState {
  nonceCounter: NonceCounterPort
  locks: LocksPort
  close(): Promise<void>
}

/** How often expired nonce counts and locks are deleted from the database. */
const SWEEP_MS = 60_000

export function openSharedState(
  kind: KernelState,
  target: DatabaseTarget,
  timeouts: StateTimeouts,
  log: Logger,
): SharedState {
  if (kind === 'memory') {
    const nonceCounter = new MemoryNonceCounter()
    return {
      nonceCounter,
      locks: new MemoryLocks(),
      close: () => Promise.resolve(nonceCounter.close()),
    }
  }
  const sql = openStateSql(target, timeouts, log)
  const nonceCounter = new DatabaseNonceCounter(sql)
  const locks = new DatabaseLocks(sql)
  // Any process may sweep; a database that does not answer is tried again at the next round.
  const sweeper = setInterval(() => {
    nonceCounter
      .sweep()
      .then(
        () => locks.sweep(),
        () => undefined,
      )
      .catch(() => undefined)
  }, SWEEP_MS)
  sweeper.unref()
  return {
    nonceCounter,
    locks,
    close: async () => {
      clearInterval(sweeper)
      locks.close()
      await sql.close()
    },
  }
}

/**
 * The shared-state ports whose adapter serves one process only (`state: memory`): with them,
 * several HTTP processes would each accept a request replayed against another, and take an
 * upload's lock twice. `serve` refuses to start several; `doctor` names them.
 */
export function statePerProcess(ports: PortRegistry): ('nonceCounter' | 'locks')[] {
  return (['nonceCounter', 'locks'] as const).filter((name) => ports.get(name).scope === 'process')
}
