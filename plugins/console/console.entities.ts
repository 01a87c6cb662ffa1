import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { User } from '../identity/index.js'

/**
 * A signed-in browser. Stored by the SHA-256 of its id: the id is a credential (the cookie), so a copy of the
 * database gives no usable session.
 */
export interface ConsoleSession {
  id: number
  idHash: string
  user: User
  /** The token the console's requests echo in their CSRF header (readable by the page, never by another site). */
  csrf: string
  createdAt: Date
  /** The last request made with it (kept to the minute): `console.session_idle` counts from here. */
  seenAt: Date
  /** `createdAt` plus `console.session_lifetime`: no request makes it last longer. */
  expiresAt: Date
}

/** A one-time link where a user chooses a password and is signed in (`mediactl user sign-in-link`). */
export interface SignInLink {
  id: number
  /** SHA-256 (hex) of the token in the link, for the same reason as a session's. */
  tokenHash: string
  user: User
  createdAt: Date
  expiresAt: Date
  /** null while unused. */
  usedAt: Date | null
}

/** One failed sign-in, counted against its account and its address (`account:<name>`, `address:<ip>`). */
export interface SignInFailure {
  id: number
  subject: string
  failedAt: Date
}

export const ConsoleSessionEntity = new EntitySchema<ConsoleSession>({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    idHash: { type: 'string', length: 64, unique: true },
    user: cascadingReference('User'),
    csrf: { type: 'string', length: 64 },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    seenAt: { type: 'datetime' },
    expiresAt: { type: 'datetime', index: true },
  },
})

export const SignInLinkEntity = new EntitySchema<SignInLink>({
  name: 'SignInLink',
  tableName: 'console_sign_in_links',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    tokenHash: { type: 'string', length: 64, unique: true },
    user: cascadingReference('User'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    expiresAt: { type: 'datetime', index: true },
    usedAt: { type: 'datetime', nullable: true },
  },
})

export const SignInFailureEntity = new EntitySchema<SignInFailure>({
  name: 'SignInFailure',
  tableName: 'console_sign_in_failures',
  indexes: [{ properties: ['subject', 'failedAt'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    subject: { type: 'string', length: 200 },
    failedAt: { type: 'datetime' },
  },
})
