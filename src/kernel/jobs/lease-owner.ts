import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'

/**
 * Who holds a job's lease: `<host>:<pid>:<random>`. The random part tells two queues of one
 * process apart (tests, embedding) and a restarted process from the one it replaces when it
 * got the same pid (pid 1 in a container).
 */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}

/** Owners of queues of this process that are started or still have runs in flight. */
const liveOwners = new Set<string>()

/** Marks an owner of this process as live (or not any more). */
export function setLive(owner: string, live: boolean): void {
  if (live) liveOwners.add(owner)
  else liveOwners.delete(owner)
}

/**
 * Whether `owner` is known dead without waiting for its lease: a process of this host that
 * no longer runs, or an earlier process with our own pid (its jobs cannot be running, since we
 * are). Owners on other hosts are never judged: their leases expire instead. This relies on
 * host names being unique among the processes sharing a database (docs/decisions/0111-claims-leases-and-keys-in-the-database.md).
 */
export function isDeadOwner(owner: string): boolean {
  const parts = owner.split(':')
  if (parts.length < 3 || liveOwners.has(owner)) return false
  const pid = Number(parts.at(-2))
  const host = parts.slice(0, -2).join(':')
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false
  return pid === process.pid || !processRuns(pid)
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
