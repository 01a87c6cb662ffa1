import { validateCronExpression } from 'cron'
import { z } from 'zod'
import { serviceKey } from '../../src/kernel/index.js'

const bytes = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER)
const seconds = z.coerce.number().int().min(60)

/** The `files` section of the configuration (docs/configuration.md). */
export const filesConfigSchema = z
  .object({
    /** Largest file accepted, in bytes, whatever the quotas (413 beyond); 0: only the quotas limit. */
    max_file_size: bytes.default(21474836480),
    /** Most pieces a chunked upload may announce (`chunks`). */
    max_chunks: z.coerce.number().int().min(1).default(10000),
    /** Seconds a chunked or tus upload may stay idle before the purge job removes it (default 24 h). */
    pending_ttl: seconds.default(86400),
    /** Seconds an upload link (and its token) stays valid (default 24 h). */
    upload_link_ttl: seconds.default(86400),
    /** Base URL of the upload links (html, json, tus); empty: the public base URL. */
    upload_base_url: z.string().default(''),
    /** Size of the pieces the html upload page sends, in bytes (default 64 MB, as the spec says). */
    upload_piece_size: z.coerce.number().int().min(1024).default(67108864),
    /** When the purge job runs (cron syntax, server time); empty: never (run `mediactl purge` from cron instead). */
    purge_schedule: z
      .string()
      .default('17 * * * *')
      .refine((value) => value === '' || validateCronExpression(value).valid, {
        message: 'must be a cron expression (for example "17 * * * *": every hour at minute 17), or empty',
      }),
  })
  .strict()

export type FilesConfig = z.infer<typeof filesConfigSchema>

/** The file store's settings, for the plugins that make upload links or pages of their own (the recorder). */
export const FILES_SETTINGS = serviceKey<Readonly<FilesConfig>>('files.settings')
