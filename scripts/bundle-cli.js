#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/commands.js, what tsc wrote, with every module it imports) into
// dist/bundle/ (npm run build, after tsc): bin/run.js loads it through oclif's `commands.target`. Loading 1,100
// CommonJS files of node_modules and 500 of mediactl one by one (resolving, reading, lexing each) was most of a
// command's start: `mediactl user create` took 2.2 s of CPU, 1.0 s bundled (docs/decisions/0239-the-cli-runs-from-one-bundle-issue-17.md). Split: a plugin
// imported only when configured (storage-s3, queue-bullmq, state-redis) is a chunk read only then.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const OUT_DIR = join(ROOT, 'dist/bundle')

/**
 * Left to node_modules: packages that find files of their own beside their code at run time (the native addon, the
 * npm-installed ffmpeg, BullMQ's package.json), oclif (it loads the bundle), and the optional database drivers of
 * knex and MikroORM that mediactl does not install (required only when their dialect is chosen).
 */
const EXTERNAL = [
  '@oclif/core',
  'better-sqlite3',
  '@ffmpeg-installer/*',
  '@ffprobe-installer/*',
  'bullmq',
  'libsql',
  'mariadb',
  'mysql',
  'mysql2',
  'oracledb',
  'sqlite3',
  'tedious',
]

/** CommonJS code bundled into ES modules still calls require() and reads __dirname: defined per chunk. */
const COMMONJS_GLOBALS = [
  "import { createRequire as __mediactlRequire } from 'node:module'",
  "import { dirname as __mediactlDirname } from 'node:path'",
  "import { fileURLToPath as __mediactlPath } from 'node:url'",
  'const require = __mediactlRequire(import.meta.url)',
  'const __filename = __mediactlPath(import.meta.url)',
  'const __dirname = __mediactlDirname(__filename)',
].join(';\n')

rmSync(OUT_DIR, { recursive: true, force: true })
await build({
  entryPoints: { mediactl: join(ROOT, 'dist/src/cli/commands.js') },
  outdir: OUT_DIR,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: COMMONJS_GLOBALS },
  // With NODE_OPTIONS=--enable-source-maps, stack traces name the TypeScript sources (tsc's maps, chained; docs/cli.md).
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
})
