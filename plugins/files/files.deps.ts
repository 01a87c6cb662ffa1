import type {
  Emit,
  EntityManager,
  LocksPort,
  Logger,
  Reader,
  ResumableUploadsPort,
  StoragePort,
} from '../../src/kernel/index.js'
import type { FileInfo } from './file-info.service.js'
import type { FilesConfig } from './files.config.js'
import type { UploadMetrics } from './upload.metrics.js'
import type { UploadLinks } from './upload-token.js'

/**
 * What the file store's handlers, services and jobs use, resolved once while the plugin
 * registers (index.ts) and passed down: nothing looks a port or the kernel up per request.
 */
export interface FilesDeps {
  readonly config: FilesConfig
  readonly storage: StoragePort
  /** Where tus uploads keep their bytes; tus answers 501 without one. */
  readonly resumableUploads: ResumableUploadsPort | undefined
  /** The locks of tus uploads: the kernel's (database or memory, as `state` says) or state-redis's. */
  readonly locks: LocksPort
  /** Announces `file.uploaded`, `file.deleted`, `file.describe`. */
  readonly emit: Emit
  /** Committed data, for work outside a request. */
  readonly reader: Reader
  readonly log: Logger
  /** A fresh EntityManager, for work outside a request's. */
  em(): EntityManager
  /** Makes and checks the tokens of upload links (the `UPLOAD_LINKS` this plugin exposes). */
  readonly uploadLinks: UploadLinks
  /** The info answer of a file (the `FILE_INFO` this plugin exposes). */
  readonly info: FileInfo
  /** The upload metrics: bytes and time of the uploads that became files, by method. */
  readonly metrics: UploadMetrics
}
