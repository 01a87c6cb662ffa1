import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { repoFile, section } from './markdown.js'

const root = new URL('../../', import.meta.url)
const folders = (path: string): string[] =>
  readdirSync(new URL(path, root), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)

/** The text block of the README's "Project layout" section. */
const layout = section(repoFile('README.md'), '## Project layout')
const lines = layout.split('\n')

/** Folders that are built, installed or written at run time, never part of the layout. */
const GENERATED = new Set(['node_modules', 'dist', 'data', 'coverage', 'scratch', 'test-artifacts'])

describe('README.md, Project layout', () => {
  const plugins = folders('plugins/')

  it('describes every plugin folder', () => {
    expect(plugins.length).toBeGreaterThan(20)
    expect(
      plugins.filter((name) => !lines.some((line) => line.startsWith(`  ${name}/ `))),
      'plugin folders missing from README.md, Project layout',
    ).toEqual([])
  })

  it('describes no plugin folder that does not exist', () => {
    const described = lines.flatMap((line) => /^ {2}([a-z0-9-]+)\/ /.exec(line)?.[1] ?? [])
    expect(
      described.filter((name) => !plugins.includes(name)),
      'README.md, Project layout, describes plugins that do not exist',
    ).toEqual([])
  })

  it('names every top-level folder of the repository', () => {
    const missing = folders('').filter(
      (name) => !GENERATED.has(name) && !lines.some((line) => line.startsWith(`${name}/`)),
    )
    expect(missing, 'folders missing from README.md, Project layout').toEqual([])
  })
})

describe('src/catalog.ts', () => {
  it('lists every plugin folder, and only those', () => {
    expect([...CATALOG.names].sort(), 'plugins of src/catalog.ts').toEqual(folders('plugins/').sort())
  })

  it('loads each plugin under the name of its folder', async () => {
    const loaded = await CATALOG.load(CATALOG.names)
    expect(loaded.map((plugin) => plugin.name)).toEqual([...CATALOG.names])
  })
})
