import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { anchorsOf, brokenLinks, type LinkTree, linksOf, slugify } from './markdown.js'

/**
 * Every relative link of every Markdown file of the repository points to a file that exists
 * and, with an anchor, to a heading (or HTML id) that the target has, as GitHub makes anchors.
 * Absolute links (https:, mailto:) are left alone.
 */

const root = new URL('../../', import.meta.url)

/** Folders that are built, installed, generated or test data: their Markdown is not ours to check. */
const SKIPPED = new Set(['node_modules', 'dist', 'data', 'coverage', 'scratch', 'test-artifacts', 'fixtures'])

function markdownFiles(folder = ''): string[] {
  return readdirSync(new URL(folder || '.', root), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return []
    const path = `${folder}${entry.name}`
    if (entry.isDirectory()) return markdownFiles(`${path}/`)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

const repository: LinkTree = {
  read: (path) => readFileSync(new URL(path, root), 'utf8'),
  exists: (path) => existsSync(new URL(path, root)),
}

/** A tree held in memory: files by path, folders implied by them. */
function memoryTree(files: Record<string, string>): LinkTree {
  return {
    read: (path) => {
      if (!(path in files)) throw new Error(`no file ${path}`)
      return files[path]!
    },
    exists: (path) =>
      path.replace(/\/$/, '') in files ||
      Object.keys(files).some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`)),
  }
}

describe('Markdown links of the repository', () => {
  const files = markdownFiles()

  it('finds the documents', () => {
    expect(files).toContain('README.md')
    expect(files).toContain('docs/decisions/README.md')
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(200)
  })

  it('has no relative link to a missing file or anchor', () => {
    const problems = files.flatMap((file) => brokenLinks(file, repository))
    expect(problems, 'broken links').toEqual([])
  })
})

describe('the link checker', () => {
  const sample = memoryTree({
    'README.md': [
      '# Sample',
      '',
      '## Getting started',
      '',
      'See [the guide](docs/guide.md), [its setup](docs/guide.md#setup), [the start](#getting-started),',
      '[a missing file](docs/missing.md), [a missing anchor](docs/guide.md#nowhere) and [another',
      'one](#no-such-heading). [The web](https://example.com/x.md#y) is not checked, nor `[code](nowhere.md)`.',
      '',
      '```md',
      '[in a fence](fenced.md)',
      '```',
      '',
      '[ref]: docs/gone.md',
    ].join('\n'),
    'docs/guide.md':
      '# Guide\n\n## Setup\n\n## Setup\n\nBack to [the top](../README.md#sample) and [twice](#setup-1).\n',
  })

  it('reports the missing files and anchors, with their lines', () => {
    expect(brokenLinks('README.md', sample)).toEqual([
      'README.md:6: docs/missing.md: no file docs/missing.md',
      'README.md:6: docs/guide.md#nowhere: no anchor #nowhere in docs/guide.md',
      'README.md:6: #no-such-heading: no anchor #no-such-heading in README.md',
      'README.md:13: docs/gone.md: no file docs/gone.md',
    ])
  })

  it('accepts links that resolve, through folders and repeated headings', () => {
    expect(brokenLinks('docs/guide.md', sample)).toEqual([])
  })

  it('refuses a link that leaves the repository', () => {
    const tree = memoryTree({ 'a.md': '[out](../b.md)' })
    expect(brokenLinks('a.md', tree)).toEqual(['a.md:1: ../b.md: no file ../b.md'])
  })

  it('finds links whose label runs over lines, and none in code', () => {
    expect(linksOf('[a\nb](x.md) `[c](y.md)`\n\n```\n[d](z.md)\n```\n').map((link) => link.target)).toEqual(['x.md'])
  })

  it.each([
    ['Node 24: better-sqlite3 built against 24.18.1 headers', 'node-24-better-sqlite3-built-against-24181-headers'],
    ['Empty lists: `Content-Range: entities */0`', 'empty-lists-content-range-entities-0'],
    ['`max_users`: a lock on the platform row', 'max_users-a-lock-on-the-platform-row'],
    ["412's reason phrase", '412s-reason-phrase'],
    ['Resumable uploads (tus)', 'resumable-uploads-tus'],
    ['**Bold** and [a link](x.md)', 'bold-and-a-link'],
    ['Été à Paris', 'été-à-paris'],
  ])('slugs "%s" as GitHub does: %s', (heading, slug) => {
    expect(slugify(heading)).toBe(slug)
  })

  it('numbers repeated headings and ignores headings in code', () => {
    expect([...anchorsOf('# A\n## Endpoints\n## Endpoints\n```\n## Endpoints\n```\n### Endpoints\n')]).toEqual([
      'a',
      'endpoints',
      'endpoints-1',
      'endpoints-2',
    ])
  })
})
