import { type EntityManager, type PluginDefinition, definePlugin, forbidden } from '../../../src/kernel/index.js'

/** A `player_theme.deleting` or `player_behavior.deleting` seen by the listener. */
export interface Seen {
  event: string
  ids: number[]
  inTransaction: boolean
}

/** Every deleting event seen, in order. */
export const seen: Seen[] = []

/** Ids whose deletion the listener refuses (to show that the deletion is rolled back). */
export const refused = new Set<number>()

/** A stand-in for the widgets plugin: records the deleting events, and refuses some ids. */
export const listener: PluginDefinition = definePlugin({
  name: 'players-listener',
  dependsOn: ['players'],
  register(ctx) {
    for (const event of ['player_theme.deleting', 'player_behavior.deleting'] as const) {
      ctx.on(event, ({ em, ids }: { em: EntityManager; ids: number[] }) => {
        seen.push({ event, ids: [...ids], inTransaction: em.isInTransaction() })
        if (ids.some((id) => refused.has(id))) throw forbidden('The widgets refused.')
      })
    }
  },
})
