/**
 * Speech to text, offline: audio in, timed segments of text out (issue 34). A captions job extracts a file's main audio
 * track as a 16 kHz mono WAV, asks the transcriber for its words, then cuts cues as caption guidelines ask: the port
 * answers what was said and when, not how it is shown.
 */

/** One stretch of speech: seconds from the start of the audio, and the words heard in it. */
export interface TranscriptSegment {
  start: number
  end: number
  text: string
}

/** What a transcription found. No segment means silence (or nothing the engine understood), not an error. */
export interface Transcript {
  /** The engine and its model, as the captions name them (`pocketsphinx en-us`, `whisper.cpp ggml-base.en`). */
  engine: string
  /** The language transcribed, a BCP 47 tag (`en`, `fr`). */
  language: string
  /** In time order, none overlapping the next. */
  segments: TranscriptSegment[]
}

/** Whether the engine can work here, for `doctor` and for refusing a request early. */
export type TranscriberStatus =
  { ready: true; engine: string; languages: readonly string[] } | { ready: false; engine: string; reason: string }

export interface TranscriberPort {
  status(): Promise<TranscriberStatus>
  /**
   * Transcribes `wav`, a 16 kHz mono 16-bit WAV file, in `language` (one of `status().languages`). Rejects when the
   * engine cannot run (its binary or model missing, a crash, `signal` aborted), never with made-up text.
   */
  transcribe(wav: string, options: { language: string; signal?: AbortSignal }): Promise<Transcript>
}
