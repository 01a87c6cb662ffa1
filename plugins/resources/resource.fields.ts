import type { FieldReader, Form, FormValue } from '../../src/kernel/index.js'
import { VISIBILITIES, type Visibility } from '../streams/index.js'

/** Longest description (plain text or HTML). */
export const DESCRIPTION_MAX = 65535

/** The resource fields a request may send; undefined: not sent, null: sent empty (cleared). */
export interface ResourceInput {
  /** Slug of a file of the caller. */
  file?: string
  title?: string
  subtitle?: string | null
  description?: string | null
  publishedAt?: Date | null
  visibility?: Visibility
  /** `metadata[<name>]` fields as sent. */
  metadata?: Readonly<Record<string, FormValue>>
}

/** Reads the resource fields (`subtitle` and `sub_title` name the same field: API-DECISIONS). */
export function readResourceFields(v: FieldReader, form: Form): ResourceInput {
  const metadata = form.metadata
  if (metadata !== undefined && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    v.fail('metadata', 'send values as metadata[<name>]')
  }
  return {
    file: v.string('file', { required: true, max: 64 }) ?? undefined,
    title: v.string('title', { required: true, max: 255 }) ?? undefined,
    subtitle: v.string('subtitle', { max: 255, aliases: ['sub_title'] }),
    description: v.string('description', { max: DESCRIPTION_MAX }),
    publishedAt: v.dateTime('published_at'),
    visibility: v.oneOf('visibility', VISIBILITIES, { required: true }) ?? undefined,
    metadata: typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : undefined,
  }
}
