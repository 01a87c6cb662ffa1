import { EntitySchema } from '@mikro-orm/core'

/**
 * A playback session already counted in a resource's views: the random id the player page's
 * view token carries, kept until that token expires (a replay of the token is then refused by
 * its expiry, so the row is no longer needed).
 */
export interface PlayerViewSession {
  id: number
  /** The random session id of the page load (base64url, 22 characters). */
  sessionId: string
  /** When the view token of the session expires; the row may be removed from then on. */
  expiresAt: Date
  createdAt: Date
}

export const PlayerViewSessionEntity = new EntitySchema<PlayerViewSession>({
  name: 'PlayerViewSession',
  tableName: 'player_view_sessions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    sessionId: { type: 'string', length: 32, unique: true },
    expiresAt: { type: 'datetime', index: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
