import { CATALOG } from '../../src/catalog.js'
import { Kernel, createLogger } from '../../src/kernel/index.js'
import { startApp } from '../helpers/app.js'
import { queueConformance } from './queue.conformance.js'

/** Runs on SQLite, and on PostgreSQL when MEDIACTL_TEST_DATABASE_URL is set. */
queueConformance('queue-inline', async () => {
  const lease = 1
  const app = await startApp({ jobs: false, config: { 'queue-inline': { poll_interval: 0.05, lease } } })
  const others: Kernel[] = []
  return {
    queue: app.kernel.services.ports.get('queue'),
    leaseMs: lease * 1000,
    // Another process: a second kernel on the same database, with its own connections.
    async another() {
      const kernel = await Kernel.boot({ config: app.kernel.config, catalog: CATALOG, logger: createLogger('silent') })
      others.push(kernel)
      return kernel.services.ports.get('queue')
    },
    async cleanup() {
      for (const kernel of others) await kernel.close()
      await app.close()
    },
  }
})
