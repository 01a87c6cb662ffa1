import { z } from 'zod'

/**
 * A rendition name: it becomes a file name (`<name>.mp4`, `hls/<name>/`) and part of the
 * public URLs (`.../flavor/video/<name>.mp4`), so only lowercase letters, digits and dashes.
 */
const renditionName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'lowercase letters, digits and dashes (1 to 32), starting with a letter or digit')

/** Kilobits per second. */
const kbps = z.coerce.number().int().min(8).max(1_000_000)

/** An even number of pixels: H.264 in 4:2:0 needs even dimensions. */
const evenPixels = z.coerce
  .number()
  .int()
  .min(16)
  .max(8192)
  .refine((value) => value % 2 === 0, 'an even number of pixels')

/** One rung of the video ladder: an MP4 flavor and an HLS variant. */
const rungSchema = z
  .object({
    /** Name clients see (`<flavor name="720p">`); the file is `<name>.mp4`. */
    name: renditionName,
    /**
     * Frame size of a landscape source, in pixels. The picture is fitted inside it keeping its
     * aspect ratio, never enlarged; a portrait source is fitted inside the box turned (height × width).
     */
    width: evenPixels,
    /** Frame height of a landscape source, in pixels (see width). */
    height: evenPixels,
    /** x264 constant rate factor: 0 (lossless) to 51; lower is better and larger. 23 is x264's default. */
    crf: z.coerce.number().min(0).max(51).default(23),
    /** Ceiling of the video bitrate in kbit/s (VBV, buffer of twice as much), so a rung stays streamable; 0: none. */
    maxrate: z.coerce.number().int().min(0).max(1_000_000).default(0),
    /** AAC bitrate of this rung's sound, kbit/s. */
    audio_bitrate: kbps.default(128),
  })
  .strict()

/** One audio flavor of a sound-only file. */
const audioFlavorSchema = z
  .object({
    /** Name clients see; the file is `<name>.m4a` (aac) or `<name>.mp3` (mp3). */
    name: renditionName,
    /** `aac` (in an MP4 audio file, .m4a) or `mp3` (LAME). */
    codec: z.enum(['aac', 'mp3']),
    /** Bitrate in kbit/s. */
    bitrate: kbps.default(128),
  })
  .strict()

const X264_PRESETS = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium',
  'slow',
  'slower',
  'veryslow',
] as const

const DEFAULT_LADDER = [
  { name: '1080p', width: 1920, height: 1080, crf: 23, maxrate: 6000, audio_bitrate: 160 },
  { name: '720p', width: 1280, height: 720, crf: 23, maxrate: 3500, audio_bitrate: 128 },
  { name: '480p', width: 854, height: 480, crf: 24, maxrate: 1500, audio_bitrate: 128 },
  { name: '360p', width: 640, height: 360, crf: 25, maxrate: 800, audio_bitrate: 96 },
]

/**
 * Named ladders: `resolution` (the default: names by height) and `hd-sd-ld` (the names the
 * original service's installations used, `<prefix>-hd.mp4` and so on, which old clients look
 * for by name).
 */
export const LADDER_PRESETS = {
  resolution: DEFAULT_LADDER,
  'hd-sd-ld': [
    { name: 'hd', width: 1280, height: 720, crf: 23, maxrate: 3500, audio_bitrate: 128 },
    { name: 'sd', width: 854, height: 480, crf: 24, maxrate: 1500, audio_bitrate: 128 },
    { name: 'ld', width: 640, height: 360, crf: 25, maxrate: 800, audio_bitrate: 96 },
  ],
}

const PRESET_NAMES = Object.keys(LADDER_PRESETS) as [keyof typeof LADDER_PRESETS, ...(keyof typeof LADDER_PRESETS)[]]

const DEFAULT_AUDIO = [
  { name: 'aac', codec: 'aac' as const, bitrate: 160 },
  { name: 'mp3', codec: 'mp3' as const, bitrate: 192 },
]

function uniqueNames(list: { name: string }[]): boolean {
  return new Set(list.map((item) => item.name)).size === list.length
}

/** The `encoder-ffmpeg` section of the configuration (docs/configuration.md). */
export const encoderConfigSchema = z
  .object({
    /**
     * Seconds one run may take (an encoding with all its steps, a snapshot extraction, a logo
     * insertion); beyond it ffmpeg is killed and the run fails. Default 6 hours.
     */
    time_limit: z.coerce.number().positive().default(21600),
    /** Seconds probing one file may take; beyond it the file counts as not media. */
    probe_time_limit: z.coerce.number().positive().default(60),
    /** ffmpeg's `-threads` for each run; 0: ffmpeg's choice (every core). Lower it to leave cores to the server. */
    threads: z.coerce.number().int().min(0).max(64).default(0),
    /** The video flavors and HLS variants. */
    video: z
      .object({
        /**
         * The ladder, any order. A source gets the rungs it fills, never enlarged: a 1280×720
         * source gets 720p, 480p and 360p; a source smaller than the smallest rung gets that rung
         * at its own size.
         */
        ladder: z
          .union([
            z.enum(PRESET_NAMES),
            z.array(rungSchema).min(1, 'at least one rung').refine(uniqueNames, 'rung names must be unique'),
          ])
          .default('resolution'),
        /**
         * Put before every rung's name, with a dash: `fun` and the `hd-sd-ld` ladder give
         * `fun-hd`, `fun-sd`, `fun-ld` (`.../flavor/video/fun-hd.mp4`). Empty: the names as they are.
         */
        name_prefix: z
          .union([
            z.literal(''),
            z.string().regex(/^[a-z0-9][a-z0-9-]{0,15}$/, 'lowercase letters, digits and dashes (1 to 16)'),
          ])
          .default(''),
        /** x264 preset: speed against size at equal quality (`ultrafast` to `veryslow`). */
        preset: z.enum(X264_PRESETS).default('fast'),
        /** H.264 profile; `main` or `baseline` only for very old players. */
        profile: z.enum(['baseline', 'main', 'high']).default('high'),
      })
      .strict()
      .default({})
      // The rungs the encoder works with: the preset's or the list, each name with the prefix.
      .transform(({ ladder, name_prefix, ...video }) => ({
        ...video,
        name_prefix,
        ladder_preset: typeof ladder === 'string' ? ladder : ('custom' as const),
        ladder: (typeof ladder === 'string' ? LADDER_PRESETS[ladder] : ladder).map((rung) => ({
          ...rung,
          name: name_prefix ? `${name_prefix}-${rung.name}` : rung.name,
        })),
      })),
    /** The flavors of a sound-only file. */
    audio: z
      .object({
        /** Each flavor is one file. */
        flavors: z
          .array(audioFlavorSchema)
          .min(1, 'at least one flavor')
          .refine(uniqueNames, 'flavor names must be unique')
          .default(DEFAULT_AUDIO),
      })
      .strict()
      .default({}),
    /** The HLS rendition of videos, cut from the MP4 flavors without encoding again. */
    hls: z
      .object({
        /** Write the HLS rendition (`hls/master.m3u8`). */
        enabled: z.boolean().default(true),
        /** Target segment length in seconds; flavors get a keyframe at every multiple of it. */
        segment_duration: z.coerce.number().int().min(1).max(30).default(6),
      })
      .strict()
      .default({}),
    /** The thumbnail of videos and images. */
    thumbnail: z
      .object({
        /** Width in pixels (never wider than the picture). */
        width: evenPixels.default(640),
        /** Where the video frame is taken, as a fraction of the duration. */
        position: z.coerce.number().min(0).max(0.99).default(0.1),
      })
      .strict()
      .default({}),
    /** The snapshots of videos (the frames clients choose the thumbnail from). */
    snapshots: z
      .object({
        /** Width in pixels (never wider than the video). */
        width: evenPixels.default(640),
      })
      .strict()
      .default({}),
    /** Logo insertion (the studio's `insertlogo`): its result is a new upload, encoded again like any other. */
    logo: z
      .object({
        /** x264 constant rate factor of the video with its logo; low (high quality), as it is encoded once more. */
        crf: z.coerce.number().min(0).max(51).default(18),
      })
      .strict()
      .default({}),
    /** The normalized JPEG of images. */
    image: z
      .object({
        /** Longest side in pixels; larger pictures are scaled down, smaller ones kept. */
        max_size: evenPixels.default(4096),
        /** JPEG quality, ffmpeg's `-q:v`: 2 (best) to 31. */
        quality: z.coerce.number().int().min(2).max(31).default(3),
      })
      .strict()
      .default({}),
  })
  .strict()

export type EncoderConfig = z.infer<typeof encoderConfigSchema>
export type Rung = EncoderConfig['video']['ladder'][number]
export type AudioFlavor = EncoderConfig['audio']['flavors'][number]
