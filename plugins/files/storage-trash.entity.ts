import { EntitySchema } from '@mikro-orm/core'

/**
 * Stored bytes whose rows are gone: written in the transaction that deletes the rows, removed
 * from storage once it commits, retried by the purge job when storage was unreachable. A
 * rolled-back delete rolls its trash back too, so no row ever points at removed bytes.
 *
 * An upload also files its prefix here, due later, before its bytes stream in, and takes it
 * back in the transaction that records them: bytes of a process killed in between are
 * removed once due, and nothing else is ever lost track of.
 */
export interface StorageTrash {
  id: number
  /** A storage prefix ending with `/` (everything of one file) or one key. */
  target: string
  /** Not removed before then (an upload under way guards its prefix until it is recorded). */
  notBefore: Date
  createdAt: Date
}

export const StorageTrashEntity = new EntitySchema<StorageTrash>({
  name: 'StorageTrash',
  tableName: 'storage_trash',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    target: { type: 'string', length: 512 },
    notBefore: { type: 'datetime', index: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
