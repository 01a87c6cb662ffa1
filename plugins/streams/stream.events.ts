import type { EntityManager } from '../../src/kernel/index.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * Streams are about to be deleted (a stream and every stream below it, or all streams of
     * deleted media), inside the deleting transaction, before their rows go: remove what
     * they hold (resources).
     */
    'stream.deleting': { em: EntityManager; ids: number[] }
  }
}
