import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { StoredFile } from '../files/index.js'

/** A subtitle track of a file: the file as sent and its WebVTT version, in storage. */
export interface Subtitle {
  id: number
  /** `<sha1 of the content>.<language>.<srt|vtt>` (API-DECISIONS), unique per file. */
  publicId: string
  /** ISO 639-1, lowercase. */
  language: string
  /** The format sent. */
  format: 'srt' | 'vtt'
  /** Storage key of the WebVTT version (what players get). */
  vttKey: string
  /** Storage key of the file as sent. */
  sourceKey: string
  file: StoredFile
  createdAt: Date
}

export const SubtitleEntity = new EntitySchema<Subtitle>({
  name: 'Subtitle',
  tableName: 'subtitles',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    publicId: { type: 'string', length: 64 },
    language: { type: 'string', length: 2 },
    format: { type: 'string', length: 3 },
    vttKey: { type: 'string', length: 512 },
    sourceKey: { type: 'string', length: 512 },
    file: cascadingReference('StoredFile'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  uniques: [{ properties: ['file', 'publicId'] }],
})
