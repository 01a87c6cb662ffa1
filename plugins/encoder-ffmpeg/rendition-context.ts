import type { ProbeResult, RenditionOutput } from '../../src/kernel/index.js'
import type { EncoderConfig } from './encoder.config.js'
import type { EncoderRun } from './encoder-run.js'
import type { ProgressTracker } from './progress-tracker.js'

/** What the renditions of one input need: the run, the configuration, the work folder, the input. */
export interface RenditionContext {
  run: EncoderRun
  config: EncoderConfig
  /** The run's work folder; outputs are written here, then moved into place. */
  work: string
  input: string
  probe: ProbeResult
}

/** The outputs of one input, and the entries of the work folder to move into place. */
export interface Rendered {
  outputs: RenditionOutput[]
  entries: string[]
}

/** Renders the outputs of one media type, reporting its steps to the tracker. */
export type Renderer = (context: RenditionContext, tracker: ProgressTracker) => Promise<Rendered>

/** The thumbnail's file name, for videos and images. */
export const THUMBNAIL_FILE = 'thumbnail.jpg'
