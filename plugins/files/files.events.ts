import type { EntityManager, Reader } from '../../src/kernel/index.js'
import type { FileMedia, FileView } from './files.types.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * A new file's bytes are stored (every upload path, and derived files such as a logo
     * insertion), inside the transaction that records them: the media pipeline queues its
     * encoding in that transaction (the outbox), so a file is never committed without the
     * job that encodes it.
     */
    'file.uploaded': { em: EntityManager; file: { id: number; slug: string } }
    /**
     * Files are about to be deleted (the file itself, its directory, its owner), inside the
     * deleting transaction, before their rows go: remove what was made from them
     * (resources). Their stored bytes are removed once the transaction commits.
     */
    'file.deleted': { em: EntityManager; files: FileView[] }
    /**
     * Files are being rendered (file info, directory listings): fill in the entries of
     * `media` (one per file, by id, preset empty) from committed data. `withToken`: the
     * request asked `with-token`, so media URLs carry a signed token (for players and
     * `<img>` tags that cannot send Digest credentials).
     */
    'file.describe': {
      reader: Reader
      files: readonly FileView[]
      media: ReadonlyMap<number, FileMedia>
      withToken: boolean
    }
  }
}
