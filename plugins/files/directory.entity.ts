import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { User } from '../identity/index.js'

/** A directory of a user's file store. The root (`/files`) is implicit: top-level directories have no parent. */
export interface Directory {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  name: string
  user: User
  parent: Directory | null
  createdAt: Date
}

export const DirectoryEntity = new EntitySchema<Directory>({
  name: 'Directory',
  tableName: 'directories',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    user: cascadingReference('User'),
    parent: cascadingReference('Directory', { nullable: true }),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
