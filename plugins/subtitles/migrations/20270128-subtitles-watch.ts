import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to subtitles reach every process's cache of the subtitles of files. */
export default watchMigration('20270128-subtitles-watch', ['subtitles'])
