import type { EntityManager } from '../../src/kernel/index.js'
import type { MetadataDefinitionView } from './metadata.types.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * A metadata definition is deleted (`DELETE /metadata/<slug>`), inside the deleting
     * transaction and before its row goes: remove the values set with it (file store).
     * Not emitted when a whole platform is deleted: `platform.deleting` covers that.
     */
    'metadata.deleted': { em: EntityManager; definition: MetadataDefinitionView }
  }
}
