/** The file types the API shows (API-DECISIONS: decided by content). */
export type MediaType = 'video' | 'audio' | 'image' | 'document' | 'other'

/** One stream of a probed file. */
export interface ProbedStream {
  /** Position of the stream in the file, from 0. */
  index: number
  /** What it carries; a cover picture of a sound file is a `video` stream with `attachedPicture`. */
  kind: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment'
  /** Codec name as ffmpeg knows it (`h264`, `aac`, `mjpeg`), or `unknown`. */
  codec: string
  /** Stored width in pixels (video and images), before rotation. */
  width?: number
  /** Stored height in pixels (video and images), before rotation. */
  height?: number
  /** Samples per second, Hz (audio). */
  sampleRate?: number
  /** Number of channels (audio). */
  channels?: number
  /** Seconds, when the file says (video and audio). */
  duration?: number
  /** True for a still picture attached to the file (cover art), which is no video. */
  attachedPicture?: boolean
}

/** What probing a file tells. */
export interface ProbeResult {
  /**
   * Decided by content, never by name: video (moving pictures), audio (sound only, cover art
   * allowed), image (one still picture), document (PDF, office files: recognized by their first
   * bytes), or other (not media, corrupt or truncated, or refused: playlists, concat lists).
   */
  type: MediaType
  /** Container format (ffprobe's `format_name`, for example `mov,mp4,m4a,3gp,3g2,mj2`), or null when not media. */
  format: string | null
  /** Seconds, or null (images, not media). */
  duration: number | null
  /** Display width in pixels of the first video stream (rotation and pixel aspect applied), or null. */
  width: number | null
  /** Display height in pixels, as `width`. */
  height: number | null
  /**
   * Clockwise degrees (0, 90, 180 or 270) the stored picture is turned for display (a phone's
   * rotation flag, a photo's EXIF orientation); `width` and `height` already account for it.
   * Absent means 0.
   */
  rotation?: number
  /** True when the stored picture is also mirrored left to right before `rotation` (EXIF orientations 2, 4, 5, 7). */
  mirrored?: boolean
  /** Every stream of the file, in order; empty when not media. */
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
  /** Path relative to the output folder: a file, or for `hls` the folder (`hls`, holding `master.m3u8`). */
  path: string
  /** Media type of the file: `video/mp4`, `audio/mp4`, `audio/mpeg`, `image/jpeg`, or `application/vnd.apple.mpegurl` (HLS). */
  mimeType: string
  /** Width in pixels (pictures; for `hls`, the largest variant's). */
  width?: number
  /** Height in pixels, as `width`. */
  height?: number
  /** Seconds (video and audio). */
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
  /** Called with the percentage done, 0 to 100 (decimals), never decreasing; 100 once the outputs are complete. */
  onProgress(percent: number): void
  /** Aborted: stop the encoder process, remove partial outputs, reject. */
  signal: AbortSignal
}

/** Where a logo goes on the frame, each value a percentage (0 to 100, decimals allowed) of the frame's size. */
export interface LogoPlacement {
  /** Distance from the left edge of the frame to the logo's left edge, % of the frame width. */
  left: number
  /** Distance from the top edge of the frame to the logo's top edge, % of the frame height. */
  top: number
  /** Width of the logo, % of the frame width (more than 0; the logo is stretched to it). */
  width: number
  /** Height of the logo, % of the frame height (more than 0). */
  height: number
}

/** A logo insertion: a video, an image, where it goes, and the file to write. */
export interface LogoRequest extends Pick<EncodeRequest, 'onProgress' | 'signal'> {
  /** The video, a local file. */
  input: string
  /** What `probe` said of `input`. */
  probe: ProbeResult
  /** The logo, a local image file (PNG transparency is kept). */
  logo: string
  /** Where it goes on the frame. */
  placement: LogoPlacement
  /** The MP4 file to write (absent before); it appears only once complete. */
  output: string
}

/**
 * Media processing on local files: probing, the renditions of the configured profiles,
 * snapshots, logo insertion. Every input is read as a local file only (no network
 * protocols, no playlists or concat from user data); every run has a time limit and
 * removes its temporary files whatever happens. Provided by `encoder-ffmpeg`; used by the
 * media pipeline, which moves bytes between the storage port and local files.
 */
export interface EncoderPort {
  /**
   * Probes a local file: `other` (never an error) for what is not media, corrupt files
   * included, and for playlists and concat lists (refused: they name other files). Rejects
   * only when `signal` aborts. Takes a few tens of milliseconds; bounded by a time limit.
   */
  probe(input: string, signal?: AbortSignal): Promise<ProbeResult>
  /**
   * Renders the renditions of the input's type: video → the MP4 ladder (never upscaled),
   * an HLS rendition and a thumbnail; audio → the audio flavors; image → a normalized JPEG
   * and a thumbnail; document and other → nothing (`[]`). Outputs appear in `outputDir` only
   * once all of them are complete. Rejects when the input cannot be encoded, when the time
   * limit passes or `signal` aborts (with `signal.reason`), leaving `outputDir` as it was.
   */
  encode(request: EncodeRequest): Promise<RenditionOutput[]>
  /**
   * `count` JPEG frames of a video, evenly spaced (frame i at (i + 0.5) / count of the
   * duration), written as `<outputDir>/<i>.jpg` (i from 0); resolves with their absolute
   * paths, in order. They are scaled to the encoder's snapshot width (never enlarged), like
   * the thumbnail, so their size is not the video's: probe them when it matters. Resolves
   * with `[]` when `probe` is not a video. On failure or abort, nothing is left in `outputDir`.
   */
  snapshots(input: string, outputDir: string, count: number, probe: ProbeResult, signal: AbortSignal): Promise<string[]>
  /**
   * Writes `output` (an H.264/AAC MP4, fast start) as the video `input` with the image `logo`
   * stretched to `placement` over every frame; progress, abort and clean-up as `encode`.
   * Rejects when `input` is not a video or `logo` not an image.
   */
  insertLogo(request: LogoRequest): Promise<void>
}
