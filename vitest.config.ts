import { configDefaults, defineConfig } from 'vitest/config'
import WaitingFirstSequencer from './test/helpers/waiting-first.sequencer.js'

// A run that shuffles its files (scripts/repeat-tests.sh) keeps vitest's random order: a sequencer set here would
// replace it.
const shuffled = process.argv.some((arg) => arg.startsWith('--sequence.shuffle'))

/**
 * The files that start mediactl through a dependency outage and bound its recovery (issue 32: every process ready,
 * the video encoded within 20 s of the dependency's return). Beside the rest of the suite (three files at a time on
 * two cores, other files encoding) a two-process boot alone took up to 18 s in CI: they run after it, on their own.
 */
const OUTAGE_FILES = ['test/e2e/outage-start-*.test.ts']

/**
 * The end-to-end files: each test runs several `mediactl` processes, each a few seconds on two busy cores (Node start,
 * plugins, the database). A project of their own gives them a bound that only catches a hang; set by the harness
 * (`vi.setConfig`), it held only for the first such file of each worker, the modules being loaded once per worker.
 */
const E2E_FILES = ['test/e2e/**/*.test.ts']

/**
 * The `--exclude` patterns of the command line (.ci/run leaves the browser files out of the PostgreSQL and Node legs):
 * a project's own `exclude` replaces them rather than adding to them, so each project adds them here.
 */
const cliExcludes = cliValues('--exclude')

/**
 * `--maxWorkers` of the command line (.ci/run's Node legs run one worker each, the repeated runs two): each project
 * copies the root's `maxWorkers` (`extends: true`) and that copy, not the command line, decided, so the legs ran three
 * workers each, six on two cores, and their encodings timed out (2026-11-29).
 */
const cliMaxWorkers = Number(cliValues('--maxWorkers').at(-1)) || undefined

/** The values given to `flag` on the command line, as `flag value` or `flag=value`. */
function cliValues(flag: string): string[] {
  return process.argv.flatMap((arg, i, args) =>
    arg === flag && args[i + 1] ? [args[i + 1]!] : arg.startsWith(`${flag}=`) ? [arg.slice(flag.length + 1)] : [],
  )
}

export default defineConfig({
  test: {
    pool: 'forks',
    // Three files at a time on two cores: the end-to-end and browser files spend most of their time waiting on the
    // child processes they start (mediactl, Chromium, ffmpeg), which left a third of the CPU idle with two
    // (npm test: 313 s with two, 279 s with three; docs/decisions/0238-a-faster-suite-one-process-per-worker-ffmpeg-looked.md).
    maxWorkers: cliMaxWorkers ?? 3,
    // Each worker process runs file after file with its modules loaded once: a fresh process per file
    // spent 4 of the suite's 16 minutes importing the kernel and every plugin again (docs/decisions/0238-a-faster-suite-one-process-per-worker-ffmpeg-looked.md).
    // Files therefore restore what they change in the process (environment variables, listeners).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    sequence: shuffled ? {} : { sequencer: WaitingFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...E2E_FILES, ...cliExcludes],
          // The pages' scripts are served from their bundles (dist/browser/): built fresh for every run.
          globalSetup: ['test/helpers/browser-bundles.setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E_FILES,
          exclude: [...configDefaults.exclude, ...OUTAGE_FILES, ...cliExcludes],
          testTimeout: 120_000,
          globalSetup: ['test/helpers/browser-bundles.setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'outages',
          include: OUTAGE_FILES,
          exclude: [...configDefaults.exclude, ...cliExcludes],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
