import type { CredentialsPort } from '../../src/kernel/index.js'
import type { FilesConfig, UploadLinks } from '../files/index.js'
import type { RecorderConfig } from './recorder.config.js'

/** What the recorder's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface RecorderDeps {
  readonly config: RecorderConfig
  /** The file store's settings (`FILES_SETTINGS`): the page's upload limits. */
  readonly filesConfig: FilesConfig
  /** The file store's upload links (`UPLOAD_LINKS`), which a recorder code is spent for. */
  readonly uploadLinks: UploadLinks
  /** Finds the user a recorder code was issued to, when it is spent. */
  readonly credentials: CredentialsPort
}
