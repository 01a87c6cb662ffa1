import type { EntityManager } from '../../src/kernel/index.js'
import type { FileView } from './files.types.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * A new file is stored, committed, `pending` (every upload path, and derived files such
     * as a logo insertion): the media pipeline queues its encoding.
     */
    'file.uploaded': { file: FileView }
    /**
     * Files are about to be deleted (the file itself, its directory, its owner), inside the
     * deleting transaction, before their rows go: remove what was made from them
     * (resources). Their stored bytes are removed once the transaction commits.
     */
    'file.deleted': { em: EntityManager; files: FileView[] }
  }
}
