/** The file types the API shows (API-DECISIONS: decided by content). */
export type MediaType = 'video' | 'audio' | 'image' | 'document' | 'other'

/** One stream of a probed file. */
export interface ProbedStream {
  index: number
  kind: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment'
  codec: string
  /** Pixels (video and images). */
  width?: number
  height?: number
  /** Hz (audio). */
  sampleRate?: number
  channels?: number
}

/** What probing a file tells. */
export interface ProbeResult {
  /** video (moving pictures), audio (sound only), image (one still picture), or other when not media. */
  type: MediaType
  /** Container format (ffprobe's `format_name`), or null. */
  format: string | null
  /** Seconds, or null (images, unknown). */
  duration: number | null
  /** Display size of the first video stream (rotation applied), or null. */
  width: number | null
  height: number | null
  streams: ProbedStream[]
}

/** One output of an encoding, written under the request's output folder. */
export interface RenditionOutput {
  /**
   * What it is: `flavor` (an MP4 of the video ladder, or an audio file), `hls` (the HLS
   * folder: `master.m3u8`, one playlist and its segments per variant), `image` (the
   * normalized JPEG of an image), `thumbnail`.
   */
  kind: 'flavor' | 'hls' | 'image' | 'thumbnail'
  /** Name shown to clients: the ladder rung (`720p`) or codec (`aac`, `mp3`) from the encoder's config. */
  name: string
  /** Path relative to the output folder: a file, or for `hls` the folder. */
  path: string
  mimeType: string
  width?: number
  height?: number
  /** Seconds. */
  duration?: number
}

/** An encoding job: one input, one empty output folder, progress and cancellation. */
export interface EncodeRequest {
  /** A local file (the pipeline copies it out of storage first). */
  input: string
  /** An empty local folder for the outputs. */
  outputDir: string
  /** What `probe` said of the input. */
  probe: ProbeResult
  /** Called with 0 to 100, never decreasing. */
  onProgress(percent: number): void
  /** Aborted: stop the encoder process, remove partial outputs, reject. */
  signal: AbortSignal
}

/** Where a logo goes on the frame, each value a percentage (0 to 100) of the frame's size. */
export interface LogoPlacement {
  left: number
  top: number
  width: number
  height: number
}

/**
 * Media processing on local files: probing, the renditions of the configured profiles,
 * snapshots, logo insertion. Every input is read as a local file only (no network
 * protocols, no playlists or concat from user data); every run has a time limit and
 * removes its temporary files whatever happens. Provided by `encoder-ffmpeg`; used by the
 * media pipeline, which moves bytes between the storage port and local files.
 */
export interface EncoderPort {
  /** Probes a local file; `other` (never an error) for what is not media, corrupt files included. */
  probe(input: string, signal?: AbortSignal): Promise<ProbeResult>
  /**
   * Renders the renditions of the input's type: video → the MP4 ladder (never upscaled),
   * an HLS rendition and a thumbnail; audio → the audio flavors; image → a normalized JPEG
   * and a thumbnail; other types → nothing. Rejects when the input cannot be encoded.
   */
  encode(request: EncodeRequest): Promise<RenditionOutput[]>
  /** `count` JPEG frames evenly spaced over a video, written as `<outputDir>/<i>.jpg` (0-based); their paths. */
  snapshots(input: string, outputDir: string, count: number, probe: ProbeResult, signal: AbortSignal): Promise<string[]>
  /** Writes `output` (an MP4) as `input` with the image `logo` overlaid at `placement`; progress as `encode`. */
  insertLogo(
    request: { input: string; logo: string; placement: LogoPlacement; output: string; probe: ProbeResult } & Pick<
      EncodeRequest,
      'onProgress' | 'signal'
    >,
  ): Promise<void>
}
