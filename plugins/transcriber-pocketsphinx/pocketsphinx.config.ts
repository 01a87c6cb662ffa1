import { z } from 'zod'

/**
 * A path given to ffmpeg's filter graph, where `:`, `,`, quotes and brackets mean something: only plain paths, which
 * Debian's model paths are, rather than an escaping scheme of our own.
 */
const plainPath = z.string().regex(/^\/[A-Za-z0-9._/-]+$/, 'an absolute path of letters, digits, ".", "_", "-" and "/"')

/** Where the model lives: Debian's `pocketsphinx-en-us` package by default. */
export const pocketsphinxConfigSchema = z.object({
  /** The acoustic model's folder. */
  hmm: plainPath.default('/usr/share/pocketsphinx/model/en-us/en-us'),
  /** The pronunciation dictionary. */
  dict: plainPath.default('/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict'),
  /** The language model. */
  lm: plainPath.default('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin'),
  /** The language the model speaks (a BCP 47 tag): the one language this engine transcribes. */
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a language tag (en, en-US)')
    .default('en'),
  /** Quieter than this (dB) counts as a pause between utterances, for cue times. */
  silence_db: z.coerce.number().min(-90).max(-10).default(-35),
  /** Seconds of quiet that make a pause. */
  silence_seconds: z.coerce.number().min(0.1).max(5).default(0.4),
})

export type PocketsphinxConfig = z.infer<typeof pocketsphinxConfigSchema>
