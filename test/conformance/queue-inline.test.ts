import { queueConformance } from './queue.conformance.js'

/** The jobs guarantees with the inline (polling) transport: SQLite, and PostgreSQL when MEDIACTL_TEST_DATABASE_URL is set. */
queueConformance('queue-inline', () => ({
  plugin: 'queue-inline',
  config: { 'queue-inline': { poll_interval: 0.05 } },
}))
