import { defineConfig } from 'vitest/config'
import WaitingFirstSequencer from './test/helpers/waiting-first.sequencer.js'

// A run that shuffles its files (scripts/repeat-tests.sh) keeps vitest's random order: a sequencer set here would
// replace it.
const shuffled = process.argv.some((arg) => arg.startsWith('--sequence.shuffle'))

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The pages' scripts are served from their bundles (dist/browser/): built fresh for every run.
    globalSetup: ['test/helpers/browser-bundles.setup.ts'],
    pool: 'forks',
    // Three files at a time on two cores: the end-to-end and browser files spend most of their time waiting on the
    // child processes they start (mediactl, Chromium, ffmpeg), which left a third of the CPU idle with two
    // (npm test: 313 s with two, 279 s with three; docs/decisions/0238-a-faster-suite-one-process-per-worker-ffmpeg-looked.md).
    maxWorkers: 3,
    // Each worker process runs file after file with its modules loaded once: a fresh process per file
    // spent 4 of the suite's 16 minutes importing the kernel and every plugin again (docs/decisions/0238-a-faster-suite-one-process-per-worker-ffmpeg-looked.md).
    // Files therefore restore what they change in the process (environment variables, listeners).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    sequence: shuffled ? {} : { sequencer: WaitingFirstSequencer },
  },
})
