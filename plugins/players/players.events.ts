import type { EntityManager } from '../../src/kernel/index.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * Player themes are about to be deleted (one theme, or every theme of a deleted platform),
     * inside the deleting transaction, before their rows go. Widgets refer to themes with a
     * nullable foreign key (`on delete set null`), so nothing has to be done; a handler that
     * throws cancels the deletion.
     */
    'player_theme.deleting': { em: EntityManager; ids: number[] }
    /** Player behaviors are about to be deleted: as `player_theme.deleting`. */
    'player_behavior.deleting': { em: EntityManager; ids: number[] }
  }
}
