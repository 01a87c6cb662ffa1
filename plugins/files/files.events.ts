import type { EntityManager } from '../../src/kernel/index.js'
import type { FileMedia, FileView } from './files.types.js'

/** What `file.uploaded` tells of the new file: enough to announce it without reading it again. */
export interface UploadedFile {
  id: number
  slug: string
  name: string
  /** The owner's platform. */
  platformId: number
  /** The type the upload was sniffed as (the encoding's probe may still change it). */
  type: string
  size: number
}

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * A new file's bytes are stored (every upload path, and derived files such as a logo
     * insertion), inside the transaction that records them: the media pipeline queues its
     * encoding in that transaction (the outbox), so a file is never committed without the
     * job that encodes it.
     */
    'file.uploaded': { em: EntityManager; file: UploadedFile }
    /**
     * The media pipeline moved a file's encoding on (`progress`, 0 to 100, whole percents, at most
     * about twice a second), inside the transaction that records it on the file.
     */
    'file.encoding_progress': { em: EntityManager; fileId: number; progress: number }
    /** A file's encoding finished (its renditions are recorded), inside the transaction that says so. */
    'file.encoded': { em: EntityManager; fileId: number }
    /**
     * A file's encoding failed for good (no attempt left, a failure retrying cannot mend, or an
     * operator's cancel), inside the transaction that records `reason` as its `encoding_error`.
     */
    'file.encoding_failed': { em: EntityManager; fileId: number; reason: string }
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
      files: readonly FileView[]
      media: ReadonlyMap<number, FileMedia>
      withToken: boolean
    }
  }
}
