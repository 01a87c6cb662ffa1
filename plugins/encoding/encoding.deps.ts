import type {
  EncoderPort,
  Emit,
  EntityManager,
  Histogram,
  Logger,
  Reader,
  StoragePort,
} from '../../src/kernel/index.js'
import type { DerivedFiles, FileInfo } from '../files/index.js'
import type { EncodingConfig } from './encoding.config.js'
import type { MediaLinks } from './media-links.js'
import type { ShownRenditions } from './shown-renditions.service.js'

/**
 * What the media pipeline's jobs, reconciler and routes get from `register` (docs/architecture.md,
 * How a plugin gets what it uses): resolved once in index.ts, never looked up per job or request.
 */
export interface EncodingDeps {
  readonly config: EncodingConfig
  readonly storage: StoragePort
  /** Undefined without an encoder plugin: every run then fails, saying which to enable. */
  readonly encoder: EncoderPort | undefined
  /** Committed data, for work outside a request. */
  readonly reader: Reader
  /** A fresh EntityManager, for work outside a request's. */
  em(): EntityManager
  /** Announces the pipeline's events (`file.encoding_progress`, `file.encoded`, `file.encoding_failed`). */
  readonly emit: Emit
  readonly log: Logger
  /** Stores a derived file's bytes (the files plugin's `DERIVED_FILES`). */
  readonly derived: DerivedFiles
  /** The info answer of a file (the files plugin's `FILE_INFO`). */
  readonly info: FileInfo
  /** What shows of each file's renditions (the `SHOWN_RENDITIONS` this plugin exposes). */
  readonly shown: ShownRenditions
  /** The addresses of a file's media, with media tokens when asked. */
  readonly media: MediaLinks
  /** Where runs keep their local files: `<data_dir>/work`, one folder per job. */
  readonly workRoot: string
  /** Runs a job gets (`jobs.max_attempts`, what `ctx.enqueue` gives each job). */
  readonly maxAttempts: number
  /** `mediactl_encode_seconds_per_output_second`: wall seconds of a run per second of media made, by kind. */
  readonly encodeSpeed: Histogram<'kind'>
  /** Queues a file's encoding in `tx`, the transaction that stores its bytes (the outbox). */
  queueEncoding(tx: EntityManager, file: { id: number; slug: string }): Promise<unknown>
  /** Queues the logo insertion that makes `file`'s bytes in `tx`, the transaction that creates it. */
  queueLogoInsertion(
    tx: EntityManager,
    payload: Record<string, unknown>,
    file: { id: number; slug: string },
  ): Promise<unknown>
}
