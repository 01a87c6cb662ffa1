import type { StoragePort } from '../../src/kernel/index.js'
import type { FileInfo } from '../files/index.js'

/** What the subtitles plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface SubtitlesDeps {
  /** Where the subtitles' bytes live, under their file's prefix. */
  readonly storage: StoragePort
  /** The file store's info answer of a file (`FILE_INFO`), answered after an upload. */
  readonly info: FileInfo
}
