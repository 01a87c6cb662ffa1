import type { EntityManager } from '../../src/kernel/index.js'
import type { ResourceView } from './resource.queries.js'

/** What other plugins show of a resource in its answers (`resource.describe`). */
export interface ResourceExtras {
  /** The resource's widgets, oldest first: name and URL-encoded embed code (the iframe one). */
  widgets: { name: string; code: string }[]
}

/** What the events of a resource's life tell of it: enough to announce it without reading it again. */
export interface ResourceAnnounced {
  id: number
  slug: string
  title: string
  /** The resource's platform (its file's). */
  platformId: number
  streamSlug: string
  fileSlug: string
}

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * Resources are about to be deleted (one, those of deleted streams or files), inside the
     * deleting transaction, before their rows go: remove what they hold (widgets).
     */
    'resource.deleting': { em: EntityManager; ids: number[] }
    /** Resources were deleted, inside the deleting transaction, after their rows went. */
    'resource.deleted': { em: EntityManager; resources: ResourceAnnounced[] }
    /** A file was published into a stream, inside the creating transaction. */
    'resource.created': { em: EntityManager; resource: ResourceAnnounced }
    /**
     * A resource's fields changed, inside the updating transaction: `changed` names them as the
     * contract does (`title`, `file`, `metadata`, ...), `resource` is as it is now.
     */
    'resource.updated': { em: EntityManager; resource: ResourceAnnounced; changed: string[] }
    /**
     * Resources are being rendered (info, lists): fill in the entries of `extras` (one per
     * resource, by id, preset empty) from committed data, read for them all at once (or kept).
     */
    'resource.describe': {
      resources: readonly ResourceView[]
      extras: ReadonlyMap<number, ResourceExtras>
    }
  }
}
