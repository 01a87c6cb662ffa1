import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { ALL_METHODS } from '../../src/kernel/http/router.js'
import { bootOn } from '../helpers/kernel.js'
import { codeSpans, repoFile, tableRows } from './markdown.js'

/**
 * Every route registered must appear in the HTTP API docs (the files of docs/api/), in a table row whose
 * first cell is its method and whose second names its path: `| \`GET\` | \`/file/<slug>/status\` | ...`. A path
 * in the doc matches a route pattern segment by segment: a literal segment is written as it
 * is; a parameter (`:file`) is any `<name>` or any value (`master.m3u8`); a parameter with a
 * suffix (`:snapshot.jpg`) is anything ending with it (`<id>.jpg`); `*` is the rest of the path.
 * A query (`?token=<token>`) is left out. A route of every method (`ALL`, tus) needs one row of
 * any method. And every row must name a route that exists.
 */

interface RouteLike {
  method: string
  path: string
  owner: string
}

interface DocRow {
  method: string
  path: string
}

function matches(pattern: string, path: string): boolean {
  const want = pattern.split('/').slice(1)
  const have = path.split('/').slice(1)
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!
    if (segment === '*') return have.length > i
    const got = have[i]
    if (got === undefined) return false
    const param = /^:\w+(.*)$/.exec(segment)
    if (param) {
      const suffix = param[1]!
      if (got === '') return false
      if (suffix && !(got.endsWith(suffix) && got.length > suffix.length)) return false
    } else if (segment !== got) {
      return false
    }
  }
  return have.length === want.length
}

const methodMatches = (route: string, row: string): boolean =>
  route === row ||
  (route === 'ALL' && (ALL_METHODS as readonly string[]).includes(row)) ||
  (route === 'GET' && row === 'HEAD')

const routeName = (route: RouteLike): string => `${route.method} ${route.path} (${route.owner})`

/** The rows of the tables of docs/api/ whose first cell is an HTTP method, one per path named. */
function documentedRoutes(document: string): DocRow[] {
  const methods = new Set<string>(ALL_METHODS)
  return tableRows(document).flatMap((cells) => {
    const method = cells[0]!.replace(/`/g, '')
    if (!methods.has(method)) return []
    return codeSpans(cells[1] ?? '')
      .filter((span) => span.startsWith('/'))
      .map((span) => ({ method, path: span.replace(/\?.*$/, '') }))
  })
}

/**
 * The plugin sets booted: the default one (config/default.yaml), and the same with the other
 * backends of each port (a port takes one provider, so they cannot all be on at once).
 * `storage-s3` and `queue-bullmq` contact nothing at boot.
 */
const BOOTS: Record<string, unknown>[] = [
  {},
  {
    storage: 's3',
    queue: 'bullmq',
    redis_url: 'redis://127.0.0.1:9',
    'storage-s3': { bucket: 'docs', endpoint: 'http://127.0.0.1:9', access_key_id: 'a', secret_access_key: 'b' },
  },
]

/** The Markdown files of docs/api/, by name. */
const apiFiles = (): string[] =>
  readdirSync(new URL('../../docs/api/', import.meta.url))
    .filter((name) => name.endsWith('.md'))
    .sort()

describe('docs/api/', () => {
  const routes: RouteLike[] = []
  const booted = new Set<string>()
  const dirs: string[] = []
  let rows: DocRow[]

  beforeAll(async () => {
    rows = apiFiles().flatMap((name) => documentedRoutes(repoFile(`docs/api/${name}`)))
    for (const overrides of BOOTS) {
      const dir = mkdtempSync(join(tmpdir(), 'mediactl-api-doc-'))
      dirs.push(dir)
      const kernel = await bootOn(dir, { overrides })
      try {
        for (const plugin of kernel.plugins) booted.add(plugin.name)
        for (const { method, path, owner } of kernel.routes.routes) {
          if (!routes.some((r) => r.method === method && r.path === path)) routes.push({ method, path, owner })
        }
      } finally {
        await kernel.close()
      }
    }
  })
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('reads every file of the API docs', () => {
    // the index, the conventions, and one file per resource family at least
    expect(apiFiles()).toEqual(expect.arrayContaining(['README.md', 'conventions.md', 'identity.md', 'files.md']))
    expect(apiFiles().length).toBeGreaterThan(10)
  })

  it('boots every plugin that may register routes', () => {
    // A plugin no boot above enables must not register routes, or add it to a boot.
    const unbooted = CATALOG.names.filter((name) => !booted.has(name))
    const registering = unbooted.filter((name) => {
      const dir = new URL(`../../plugins/${name}/`, import.meta.url)
      return readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .some((file) => /\.(routes|hosts)\(/.test(readFileSync(new URL(file, dir), 'utf8')))
    })
    expect(registering, 'plugins with routes that no boot of this test enables').toEqual([])
    expect(routes.length).toBeGreaterThan(100)
  })

  it('documents every route (method and path) in an endpoint table', () => {
    const missing = routes.filter(
      (route) => !rows.some((row) => methodMatches(route.method, row.method) && matches(route.path, row.path)),
    )
    expect(missing.map(routeName), 'routes missing from docs/api/').toEqual([])
  })

  it('documents no route that does not exist', () => {
    const stale = rows.filter(
      (row) => !routes.some((route) => methodMatches(route.method, row.method) && matches(route.path, row.path)),
    )
    expect(
      stale.map((row) => `${row.method} ${row.path}`),
      'rows of docs/api/ naming no route',
    ).toEqual([])
  })
})

describe('the route matching rule', () => {
  it.each([
    ['/file/:file/status', '/file/<slug>/status', true],
    ['/file/:file/snapshots/:snapshot.jpg', '/file/<slug>/snapshots/<id>.jpg', true],
    ['/file/:file/hls/:entry', '/file/<slug>/hls/master.m3u8', true],
    ['/portal/:media/*', '/portal/<media>/<anything>', true],
    ['/file/:file/status', '/file/<slug>', false],
    ['/files/upload_links', '/files/<slug>', false],
    ['/file/:file/snapshots/:snapshot.jpg', '/file/<slug>/snapshots/<id>', false],
    ['/portal/:media/*', '/portal/<media>', false],
  ])('%s and %s: %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected)
  })
})
