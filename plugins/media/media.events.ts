import type { EntityManager } from '../../src/kernel/index.js'
import type { Media } from './media.entity.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /** A media was created, inside the creating transaction: seed what it holds (its default channels). */
    'media.created': { em: EntityManager; media: Media }
    /**
     * Media are about to be deleted (one media, or every media of a deleted platform), inside
     * the deleting transaction, before their rows go: remove what they hold (streams, channels).
     */
    'media.deleting': { em: EntityManager; ids: number[] }
  }
}
