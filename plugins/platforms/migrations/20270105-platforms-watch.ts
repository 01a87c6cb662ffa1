import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to platforms reach every process's caches (the identity plugin's credentials carry the platform's dialect). */
export default watchMigration('20270105-platforms-watch', ['platforms'])
