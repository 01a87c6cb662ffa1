import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to media sites reach every process's kept answers that show them (answer-cache.ts). */
export default watchMigration('20270129-media-watch', ['medias'])
