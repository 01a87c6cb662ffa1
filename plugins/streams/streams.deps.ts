import type { Emit } from '../../src/kernel/index.js'
import type { StreamPaths } from './stream-paths.service.js'

/** What the streams plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface StreamsDeps {
  /** Announces `stream.deleting`. */
  readonly emit: Emit
  /** The stream a path names, walked up its parents (the `STREAM_PATHS` the plugin exposes). */
  readonly paths: StreamPaths
}
