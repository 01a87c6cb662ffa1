import type { EntityManager } from '../../src/kernel/index.js'
import type { User } from './user.entity.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * A user is about to be deleted, inside the deleting transaction: remove what they own
     * (files, directories). Their accesses and group memberships go with the user row
     * (database cascades).
     */
    'user.deleting': { em: EntityManager; user: User }
    /**
     * A user's password was changed through the API (`PUT /user/<username>`), inside the updating transaction: what
     * was opened with the old one (console sessions) ends.
     */
    'user.password-changed': { em: EntityManager; userId: number }
    /** A user was created (by the API or an operator's command), inside the creating transaction. */
    'user.created': { em: EntityManager; user: { id: number; username: string; platformId: number } }
    /**
     * Every user of a platform is about to be deleted with the platform, inside the deleting
     * transaction: remove what they own, as for `user.deleting`.
     */
    'platform.users-deleting': { em: EntityManager; userIds: number[] }
  }
}
