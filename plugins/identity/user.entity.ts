import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import type { Profile } from './profile.entity.js'

/** A person or program using the API. Usernames are unique across the installation. */
export interface User {
  id: number
  username: string
  email: string
  firstName: string | null
  lastName: string | null
  telephone: string | null
  address: string | null
  city: string | null
  zipcode: string | null
  /** ISO 3166-1 alpha-2, uppercase. */
  country: string | null
  /** ISO 639-1, lowercase. */
  language: string | null
  isActive: boolean
  /** scrypt hash of the password; null when the user has none (API-key-only). */
  passwordHash: string | null
  /** md5(username:realm:api_key); the API key itself is never stored. */
  ha1: string
  platform: Platform
  profile: Profile
  createdAt: Date
}

export const UserEntity = new EntitySchema<User>({
  name: 'User',
  tableName: 'users',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    username: { type: 'string', length: 128, unique: true },
    email: { type: 'string', length: 255 },
    firstName: { type: 'string', length: 255, nullable: true },
    lastName: { type: 'string', length: 255, nullable: true },
    telephone: { type: 'string', length: 20, nullable: true },
    address: { type: 'string', length: 255, nullable: true },
    city: { type: 'string', length: 100, nullable: true },
    zipcode: { type: 'string', length: 5, nullable: true },
    country: { type: 'string', length: 2, nullable: true },
    language: { type: 'string', length: 2, nullable: true },
    isActive: { type: 'boolean' },
    passwordHash: { type: 'string', length: 255, nullable: true },
    ha1: { type: 'string', length: 32 },
    platform: cascadingReference('Platform'),
    profile: { kind: 'm:1', entity: 'Profile', deleteRule: 'restrict', updateRule: 'cascade', index: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  uniques: [{ properties: ['platform', 'email'] }],
})
