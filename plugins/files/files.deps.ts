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
import type { UploadLinks } from './upload-token.js'

/**
 * What the file store's handlers, services and jobs use, resolved once while the plugin
 * registers (index.ts) and passed down: nothing looks a port or the kernel up per request.
 */
export interface FilesDeps {
  storage: StoragePort
  /** Where tus uploads keep their bytes; tus answers 501 without one. */
  resumableUploads: ResumableUploadsPort | undefined
  /** The locks of tus uploads: the kernel's (database or memory, as `state` says) or state-redis's. */
  locks: LocksPort
  emit: Emit
  /** Committed data, for work outside a request. */
  reader: Reader
  log: Logger
  /** A fresh EntityManager, for work outside a request's. */
  em(): EntityManager
  uploadLinks: UploadLinks
  /** The info answer of a file. */
  info: FileInfo
}
