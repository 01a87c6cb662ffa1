import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoFile } from './markdown.js'

/**
 * `.ci/run` leaves out of its PostgreSQL run the files that never use the suite's database (`same_on_both`): there
 * they would run exactly as in the SQLite suite. A listed file that starts using it would lose its PostgreSQL run
 * without anyone noticing; this keeps the list true.
 */
const ci = repoFile('.ci/run')
const patterns = [...(/same_on_both=\(([^)]*)\)/.exec(ci)?.[1] ?? '').matchAll(/--exclude '([^']+)'/g)].map(
  (match) => match[1]!,
)

/** The glob forms the list uses (`**`, `*`), as vitest reads them: relative to the checkout. */
function globRegExp(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**/', i)) [source, i] = [`${source}(?:.*/)?`, i + 2]
    else if (glob.startsWith('**', i)) [source, i] = [`${source}.*`, i + 1]
    else if (glob[i] === '*') source += '[^/]*'
    else source += glob[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

const testFiles = (readdirSync('test', { recursive: true }) as string[])
  .map((path) => join('test', path))
  .filter((path) => path.endsWith('.test.ts'))

const helpers = (readdirSync('test', { recursive: true }) as string[])
  .map((path) => join('test', path))
  .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))

/**
 * The helpers that start an app or make a database: startApp and freshDatabase, and every exported helper whose body
 * calls one of them (startEncodingApp, queueConformance...), found again until none is added.
 */
function appStarters(): Set<string> {
  const starters = new Set(['startApp', 'freshDatabase'])
  const bodies = helpers.flatMap((path) =>
    repoFile(path)
      .split(/\n(?=export )/)
      .map((part) => [/^export (?:async )?function (\w+)/.exec(part)?.[1], part] as const)
      .filter((entry): entry is readonly [string, string] => entry[0] !== undefined),
  )
  for (let added = true; added;) {
    added = false
    for (const [name, body] of bodies) {
      if (!starters.has(name) && [...starters].some((starter) => body.includes(`${starter}(`))) {
        starters.add(name)
        added = true
      }
    }
  }
  return starters
}
const STARTERS = appStarters()
const OWN_DATABASE = /database:\s*\{\s*url:/

/**
 * Whether a test file uses the suite's database: it names the variable, or calls a helper that starts an app (a fresh
 * PostgreSQL database when MEDIACTL_TEST_DATABASE_URL is set) without giving it a database URL of its own.
 */
function usesSuiteDatabase(path: string): boolean {
  const source = repoFile(path)
  if (/MEDIACTL_TEST_DATABASE_URL|TEST_PG_URL/.test(source)) return true
  return [...STARTERS].some((starter) => source.includes(`${starter}(`)) && !OWN_DATABASE.test(source)
}

describe('.ci/run, the files left out of the PostgreSQL run', () => {
  it('lists patterns, each matching test files', () => {
    expect(patterns.length).toBeGreaterThan(3)
    for (const pattern of patterns) {
      expect(
        testFiles.filter((path) => globRegExp(pattern).test(path)),
        pattern,
      ).not.toEqual([])
    }
  })

  it('tells a file that uses the suite database from one that does not', () => {
    expect(usesSuiteDatabase('test/plugins/identity/users.test.ts')).toBe(true)
    expect(usesSuiteDatabase('test/plugins/encoding/job-status.test.ts')).toBe(true)
    expect(usesSuiteDatabase('test/conformance/queue-inline.test.ts')).toBe(true)
    expect(usesSuiteDatabase('test/kernel/xml.test.ts')).toBe(false)
    expect(usesSuiteDatabase('test/kernel/outage-postgres.test.ts')).toBe(false)
  })

  it('leaves out only files that never use the suite database', () => {
    const listed = testFiles.filter((path) => patterns.some((pattern) => globRegExp(pattern).test(path)))
    expect(listed.filter((path) => usesSuiteDatabase(path))).toEqual([])
  })
})
