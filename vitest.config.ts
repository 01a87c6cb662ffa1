import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The pages' scripts are served from their bundles (dist/browser/): built fresh for every run.
    globalSetup: ['test/helpers/browser-bundles.setup.ts'],
    pool: 'forks',
    // Two cores: two test files at a time; most time is spent on sockets and the database.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
})
