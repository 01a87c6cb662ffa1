import type { EntityManager, Reader } from '../../src/kernel/index.js'
import type { ResourceView } from './resource.queries.js'

/** What other plugins show of a resource in its answers (`resource.describe`). */
export interface ResourceExtras {
  /** The resource's widgets, oldest first: name and URL-encoded embed code (the iframe one). */
  widgets: { name: string; code: string }[]
}

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * Resources are about to be deleted (one, those of deleted streams or files), inside the
     * deleting transaction, before their rows go: remove what they hold (widgets).
     */
    'resource.deleting': { em: EntityManager; ids: number[] }
    /**
     * Resources are being rendered (info, lists): fill in the entries of `extras` (one per
     * resource, by id, preset empty) from committed data, in one query for them all.
     */
    'resource.describe': {
      reader: Reader
      resources: readonly ResourceView[]
      extras: ReadonlyMap<number, ResourceExtras>
    }
  }
}
