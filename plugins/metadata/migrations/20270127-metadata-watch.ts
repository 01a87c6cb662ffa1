import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to metadata definitions reach every process's cache of a platform's definitions. */
export default watchMigration('20270127-metadata-watch', ['metadata_definitions'])
