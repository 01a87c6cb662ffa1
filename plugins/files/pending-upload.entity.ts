import { BigIntType, EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { User } from '../identity/index.js'
import type { Platform } from '../platforms/index.js'
import type { Directory } from './directory.entity.js'

/** A chunked upload under way: one per user and file name; its pieces are stored objects. */
export interface PendingUpload {
  id: number
  name: string
  /** How many pieces the client announced (`chunks`). */
  chunks: number
  /** Storage key of each piece received, by index. */
  pieces: string[]
  /** Size of each piece received, by index. */
  pieceSizes: number[]
  /** Sum of `pieceSizes`: counted against quotas while the upload is pending. */
  receivedBytes: number
  user: User
  platform: Platform
  directory: Directory | null
  createdAt: Date
  /** Last piece received; the purge job removes uploads idle for longer than `files.pending_ttl`. */
  updatedAt: Date
}

export const PendingUploadEntity = new EntitySchema<PendingUpload>({
  name: 'PendingUpload',
  tableName: 'pending_uploads',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 255 },
    chunks: { type: 'integer' },
    pieces: { type: JsonType },
    pieceSizes: { type: JsonType },
    receivedBytes: { type: new BigIntType('number') },
    user: cascadingReference('User'),
    platform: cascadingReference('Platform'),
    directory: cascadingReference('Directory', { nullable: true }),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', index: true },
  },
  uniques: [{ properties: ['user', 'name'] }],
})
