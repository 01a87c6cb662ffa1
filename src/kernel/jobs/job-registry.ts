import { availableParallelism } from 'node:os'
import type { JobHandler, JobTypeOptions } from './job.types.js'

/** A job type: lowercase words joined by `.`, `_`, `-` or `:` (for example `files.encode`), at most 128 characters. */
const JOB_TYPE = /^[a-z0-9]+([._:-][a-z0-9]+)*$/

/**
 * The job handlers the plugins declared with `ctx.job`, by type. Each type has exactly one
 * owner: two plugins answering the same type would make which one runs depend on the process.
 */
export class JobRegistry {
  private readonly entries = new Map<string, { owner: string; handler: JobHandler; options: JobTypeOptions }>()

  /** Declares `owner`'s handler of `type`; throws for a malformed type or one already declared. */
  declare(owner: string, type: string, handler: JobHandler, options: JobTypeOptions = {}): void {
    if (type.length > 128 || !JOB_TYPE.test(type)) {
      throw new Error(
        `plugin "${owner}" declares job type "${type}": use lowercase words joined by ".", "_", "-" or ":" (at most 128 characters)`,
      )
    }
    if (typeof handler !== 'function')
      throw new Error(`plugin "${owner}" declares job type "${type}" without a handler`)
    const existing = this.entries.get(type)
    if (existing) {
      throw new Error(`job type "${type}" is declared twice: by plugin "${existing.owner}" and by plugin "${owner}"`)
    }
    this.entries.set(type, { owner, handler, options })
  }

  /** Whether a plugin declared `type`. */
  has(type: string): boolean {
    return this.entries.has(type)
  }

  /** The declared types. */
  types(): string[] {
    return [...this.entries.keys()]
  }

  /** How many types are declared. */
  get size(): number {
    return this.entries.size
  }

  /** `type (plugin)` for each declared type, for messages. */
  describe(): string {
    return [...this.entries].map(([type, { owner }]) => `${type} (${owner})`).join(', ')
  }

  /** The options `type` was declared with (none for an unknown type). */
  options(type: string): JobTypeOptions {
    return this.entries.get(type)?.options ?? {}
  }

  /** The handlers, by type, as `Jobs.start` takes them. */
  handlers(): ReadonlyMap<string, JobHandler> {
    return new Map([...this.entries].map(([type, { handler }]) => [type, handler]))
  }
}

/** `jobs.concurrency` made concrete: 0 means one per two CPU cores, at least 1. */
export function jobConcurrency(configured: number, cores = availableParallelism()): number {
  return configured > 0 ? configured : Math.max(1, Math.floor(cores / 2))
}
