import { BigIntType, EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { User } from '../identity/index.js'
import type { FileType, MetadataValue } from '../metadata/index.js'
import type { Platform } from '../platforms/index.js'
import type { Directory } from './directory.entity.js'

/** A file of a user's store: its bytes live in the storage port under `storageKey`. */
export interface StoredFile {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  name: string
  size: number
  /** Bytes stored for the file, renditions included (what quotas count). */
  storedBytes: number
  type: FileType
  mimeType: string
  /** Code of the `encoding_status` word (ENCODING_STATUSES). */
  encodingStatus: number
  encodingProgress: number
  encodingError: string | null
  /** While `waiting` for a retry: the attempt it waits for, of how many, and when it runs. */
  encodingAttempt: number | null
  encodingMaxAttempts: number | null
  encodingNextTry: Date | null
  storageKey: string
  /** Everything stored for the file lives under this prefix (ends with `/`). */
  storagePrefix: string
  metadata: Record<string, MetadataValue>
  user: User
  /** The owner's platform, kept on the row so quotas sum without a join. */
  platform: Platform
  /** null: the user's root. */
  directory: Directory | null
  createdAt: Date
  updatedAt: Date
}

export const StoredFileEntity = new EntitySchema<StoredFile>({
  name: 'StoredFile',
  tableName: 'files',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    size: { type: new BigIntType('number') },
    storedBytes: { type: new BigIntType('number') },
    type: { type: 'string', length: 16 },
    mimeType: { type: 'string', length: 127 },
    encodingStatus: { type: 'integer' },
    encodingProgress: { type: 'float' },
    encodingError: { type: 'text', nullable: true },
    encodingAttempt: { type: 'integer', nullable: true },
    encodingMaxAttempts: { type: 'integer', nullable: true },
    encodingNextTry: { type: 'datetime', nullable: true },
    storageKey: { type: 'string', length: 512 },
    storagePrefix: { type: 'string', length: 512 },
    metadata: { type: JsonType },
    user: cascadingReference('User'),
    platform: cascadingReference('Platform'),
    directory: cascadingReference('Directory', { nullable: true }),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
})
