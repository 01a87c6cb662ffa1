import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The pages' scripts are served from their bundles (dist/browser/): built fresh for every run.
    globalSetup: ['test/helpers/browser-bundles.setup.ts'],
    pool: 'forks',
    // Two cores: two test files at a time; most time is spent on sockets and the database.
    maxWorkers: 2,
    // Each worker process runs file after file with its modules loaded once: a fresh process per file
    // spent 4 of the suite's 16 minutes importing the kernel and every plugin again (docs/decisions.md).
    // Files therefore restore what they change in the process (environment variables, listeners).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
})
