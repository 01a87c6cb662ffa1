import { z } from 'zod'

/**
 * The operator's own engine (whisper.cpp, faster-whisper, vosk...), run as a command on a 16 kHz mono WAV. Its
 * arguments may hold `{input}` (the WAV), `{output}` (the file it must write, WebVTT or JSON as `format` says),
 * `{output_base}` (that file without its `.vtt` or `.json`, for engines that add it) and `{language}`; it runs with no
 * shell, so nothing in them is interpreted.
 */
export const commandConfigSchema = z.object({
  /** The program and its arguments; empty: no engine (status says so). */
  command: z.array(z.string().min(1)).default([]),
  /** What it writes to `{output}`: WebVTT cues, or JSON `{"segments":[{"start":s,"end":s,"text":"…"}]}`. */
  format: z.enum(['vtt', 'json']).default('vtt'),
  /** The engine's name in captions and `doctor` (`whisper.cpp ggml-base.en`). */
  engine: z.string().min(1).max(100).default('command'),
  /** The languages it transcribes (BCP 47 tags). */
  languages: z
    .array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a language tag (en, fr-CA)'))
    .default(['en']),
  /** Seconds a transcription may take before it is stopped. */
  timeout_seconds: z.coerce.number().int().min(1).max(86_400).default(3600),
})

export type CommandConfig = z.infer<typeof commandConfigSchema>
