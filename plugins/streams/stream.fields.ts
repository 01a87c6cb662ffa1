import type { FieldReader } from '../../src/kernel/index.js'
import { VISIBILITIES, type Visibility } from './stream.entity.js'

/** Longest description (plain text or HTML). */
export const DESCRIPTION_MAX = 65535

/** The stream fields a request may send; undefined: not sent, null: sent empty (cleared). */
export interface StreamInput {
  title?: string
  subtitle?: string | null
  description?: string | null
  visibility?: Visibility
  /** The slug of the parent stream; null: sent empty (move to the top of the media). */
  parentStream?: string | null
}

/** Reads the stream fields (`subtitle` and `sub_title` name the same field: API-DECISIONS). */
export function readStreamFields(v: FieldReader): StreamInput {
  const input: StreamInput = {
    title: v.string('title', { required: true, max: 255 }) ?? undefined,
    subtitle: v.string('subtitle', { max: 255, aliases: ['sub_title'] }),
    description: v.string('description', { max: DESCRIPTION_MAX }),
    visibility: v.oneOf('visibility', VISIBILITIES, { required: true }) ?? undefined,
    parentStream: v.string('parent_stream', { max: 64 }),
  }
  v.done()
  return input
}
