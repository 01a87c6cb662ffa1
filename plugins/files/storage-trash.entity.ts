import { EntitySchema } from '@mikro-orm/core'

/**
 * Stored bytes whose rows are gone: written in the transaction that deletes the rows, removed
 * from storage once it commits, retried by the purge job when storage was unreachable. A
 * rolled-back delete rolls its trash back too, so no row ever points at removed bytes.
 */
export interface StorageTrash {
  id: number
  /** A storage prefix ending with `/` (everything of one file) or one key. */
  target: string
  createdAt: Date
}

export const StorageTrashEntity = new EntitySchema<StorageTrash>({
  name: 'StorageTrash',
  tableName: 'storage_trash',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    target: { type: 'string', length: 512 },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
