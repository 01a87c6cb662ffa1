import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Outcome, passed, warned } from './doctor-checks.js'

/** First Node 24 release whose headers make better-sqlite3 12.x abort at teardown (nodejs/node#65446). */
const ABORTING_HEADERS = [24, 19] as const

const REBUILD =
  'rebuild the SQLite module against the Node 24.18.1 headers: "npm_config_target=24.18.1 npm rebuild better-sqlite3" ' +
  '(offline: npm_config_nodedir=<the folder of "npm i node@24.18.1" that holds include/node>); docs/decisions/0237-node-24-better-sqlite3-built-against-24-18-1-headers.md says why'

type Version = [number, number, number]

function parse(version: string): Version {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number)
  return [major, minor, patch]
}

const atLeast = (version: Version, [major, minor]: readonly [number, number]): boolean =>
  version[0] > major || (version[0] === major && version[1] >= minor)

/**
 * The Node release whose headers better-sqlite3 was compiled against, read from its build
 * (build/config.gypi names the headers folder; its node_version.h the release), or
 * undefined when that cannot be told (a prebuilt binary, the folder gone).
 */
export function sqliteHeadersVersion(): string | undefined {
  try {
    const root = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'))
    const gypi = readFileSync(join(root, 'build', 'config.gypi'), 'utf8')
    const nodedir = /"nodedir": "([^"]+)"/.exec(gypi)?.[1]
    if (!nodedir) return undefined
    const header = readFileSync(join(nodedir, 'include', 'node', 'node_version.h'), 'utf8')
    const part = (name: string): string | undefined =>
      new RegExp(`#define NODE_${name}_VERSION (\\d+)`).exec(header)?.[1]
    const [major, minor, patch] = [part('MAJOR'), part('MINOR'), part('PATCH')]
    return major && minor && patch ? `${major}.${minor}.${patch}` : undefined
  } catch {
    return undefined
  }
}

/**
 * The Node.js release in use: supported are 20.19+, 22 and 24 (package.json `engines`).
 * On Node 24.19 and later, better-sqlite3 12.x compiled against those same headers aborts
 * the process now and then when V8 collects a statement (nodejs/node#65446): doctor warns
 * unless the module was built against older headers.
 */
export function runtimeCheck(
  running: string = process.versions.node,
  headersOf: () => string | undefined = sqliteHeadersVersion,
): Outcome {
  const version = parse(running)
  const [major, minor] = version
  const detail = `Node.js ${running}`
  if (!(major === 20 && minor >= 19) && major !== 22 && major !== 24) {
    return warned(`${detail}, not a supported release`, 'run Node.js 22 or 24 (20.19 or later still works)')
  }
  if (major === 20) return passed(`${detail} (end of life since April 2026: plan the move to 22 or 24)`)
  if (major === 24 && atLeast(version, ABORTING_HEADERS)) {
    const headers = headersOf()
    if (!headers) return warned(`${detail}; the SQLite module's build headers are unknown`, REBUILD)
    if (atLeast(parse(headers), ABORTING_HEADERS)) {
      return warned(`${detail}; the SQLite module is built against ${headers} headers, which can abort`, REBUILD)
    }
    return passed(`${detail} (SQLite module built against ${headers} headers)`)
  }
  return passed(detail)
}
