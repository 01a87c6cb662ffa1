#!/usr/bin/env node
// Bundles the pages' browser scripts (npm run build, after tsc; also vitest's global setup, so the suite never
// runs against stale bundles): each plugins/<plugin>/browser/<name>.browser.ts (or .tsx), with what it imports, becomes
// dist/browser/<name>.js, one classic script (an IIFE) that the plugin serves under a name or query carrying its
// content hash (src/kernel/http/browser-script.ts reads it). Type-checked separately (tsconfig.browser.json):
// esbuild only strips the types. hls.js's light build is copied there too (dist/browser/hls.js), and every script gets
// its brotli (`.br`) and gzip (`.gz`) twins, compressed here once rather than by every server start (brotli at
// quality 11 takes about a second of CPU for hls.js).
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** An entry's name ends so; `.tsx` for the pages written with Preact's JSX (esbuild compiles it: no other compiler). */
const ENTRIES = ['.browser.ts', '.browser.tsx']
export const OUT_DIR = join(ROOT, 'dist/browser')

/**
 * The recorder's script already needed async functions (ES2017). The player's and the upload page's were ES5, which
 * esbuild cannot produce (it lowers nothing below ES2015): a browser that cannot run them any more (Internet
 * Explorer) still plays the player's MP4 <source>s and posts the upload page's plain form, which need no script.
 */
export const TARGET = 'es2017'

/** Every entry: `{ name, path }`, `name` unique across plugins (it is the asset's name). */
export function browserEntries(root = ROOT) {
  const entries = []
  const plugins = join(root, 'plugins')
  for (const plugin of readdirSync(plugins).sort()) {
    const folder = join(plugins, plugin, 'browser')
    if (!existsSync(folder)) continue
    for (const file of readdirSync(folder).sort()) {
      const ending = ENTRIES.find((entry) => file.endsWith(entry))
      if (!ending) continue
      const name = basename(file, ending)
      if (name === 'hls') throw new Error(`dist/browser/hls.js is hls.js: rename ${relative(root, join(folder, file))}`)
      const twin = entries.find((entry) => entry.name === name)
      if (twin) {
        throw new Error(
          `two browser scripts would be dist/browser/${name}.js: ${relative(root, twin.path)} and ${relative(root, join(folder, file))}`,
        )
      }
      entries.push({ name, path: join(folder, file) })
    }
  }
  return entries
}

/** Writes `path` through a rename: a server or test reading it never sees half a file. */
function writeWhole(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, contents)
  renameSync(temporary, path)
}

/**
 * Writes the script `path` and its compressed twins, each only when missing or changed (a twin is written before its
 * script: a script on disk always has twins of its own content).
 */
function writeScript(path, contents) {
  const unchanged = existsSync(path) && readFileSync(path).equals(contents)
  if (unchanged && existsSync(`${path}.br`) && existsSync(`${path}.gz`)) return
  const br = brotliCompressSync(contents, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: contents.length,
    },
  })
  writeWhole(`${path}.br`, br)
  writeWhole(`${path}.gz`, gzipSync(contents, { level: constants.Z_BEST_COMPRESSION }))
  if (!unchanged) writeWhole(path, contents)
}

/**
 * hls.js's light build (no subtitles, alternate audio or DRM, which the player does not use) from node_modules, its
 * source map comment removed (the map is not served).
 */
function hlsLibrary(root) {
  const require = createRequire(join(root, 'package.json'))
  const source = readFileSync(require.resolve('hls.js/dist/hls.light.min.js'), 'utf8')
  return Buffer.from(source.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'))
}

/** Bundles every entry into dist/browser/, with hls.js; answers `{ name, path, bytes }` of each script. */
export async function bundleBrowserScripts({ root = ROOT, outDir = OUT_DIR } = {}) {
  const entries = browserEntries(root)
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries.map((entry) => ({ in: entry.path, out: entry.name })),
    outdir: outDir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    tsconfig: join(root, 'tsconfig.browser.json'),
    // Preact's JSX, compiled by esbuild itself (tsconfig.browser.json says the same to the type checker).
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // Readable as served (no source maps are served); brotli or gzip take most of what minifying would.
    minify: false,
    charset: 'utf8',
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  })
  await mkdir(outDir, { recursive: true })
  const scripts = [
    ...result.outputFiles.map((file) => ({ path: file.path, contents: Buffer.from(file.contents) })),
    { path: join(outDir, 'hls.js'), contents: hlsLibrary(root) },
  ]
  return scripts.map(({ path, contents }) => {
    writeScript(path, contents)
    return { name: basename(path, '.js'), path, bytes: contents.length }
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bundles = await bundleBrowserScripts()
  if (process.argv.includes('--verbose')) {
    for (const bundle of bundles) console.log(`${relative(ROOT, bundle.path)}: ${bundle.bytes} bytes`)
  }
}
