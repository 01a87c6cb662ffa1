import type { EntityManager } from './db/orm.js'
import type { Logger } from './log.js'

/**
 * The typed event catalogue. Plugins add their events by declaration merging:
 *
 * ```ts
 * declare module '../../src/kernel/index.js' {
 *   interface KernelEvents { 'platform.created': { em: EntityManager; platform: Platform } }
 * }
 * ```
 */
export interface KernelEvents {
  /**
   * Objects of an access-tree kind were deleted, inside the deleting transaction: whatever
   * points at them (accesses) goes too. The owning plugin emits it.
   */
  'authz.objects-deleted': { em: EntityManager; kind: string; ids: number[] }
  /**
   * Remove what abandoned work left behind (expired uploads, bytes of deleted files), as of
   * `now`; add what was removed to `report`, by name. Emitted by `mediactl purge`; plugins
   * may also run their part on their own schedule while serving.
   */
  'maintenance.purge': { now: Date; report: Record<string, number> }
}

export type EventName = keyof KernelEvents & string
export type EventHandler<E extends EventName> = (payload: KernelEvents[E]) => Promise<void> | void
/** Emits an event and waits for every handler (`ctx.emit`): what a plugin's services take to announce a change. */
export type Emit = <E extends EventName>(event: E, payload: KernelEvents[E]) => Promise<void>

interface Subscription {
  owner: string
  handler: (payload: never) => Promise<void> | void
}

/**
 * In-process event bus. `emit` awaits every handler in registration (plugin dependency)
 * order, so handlers run inside the emitter's transaction when the payload carries its
 * EntityManager; a failing handler fails the emit.
 */
export class EventBus {
  private readonly handlers = new Map<string, Subscription[]>()

  constructor(private readonly log: Logger) {}

  on<E extends EventName>(owner: string, event: E, handler: EventHandler<E>): void {
    const list = this.handlers.get(event) ?? []
    list.push({ owner, handler: handler as Subscription['handler'] })
    this.handlers.set(event, list)
  }

  async emit<E extends EventName>(event: E, payload: KernelEvents[E]): Promise<void> {
    for (const { owner, handler } of this.handlers.get(event) ?? []) {
      this.log.trace({ event, owner }, 'event')
      await (handler as EventHandler<E>)(payload)
    }
  }
}
