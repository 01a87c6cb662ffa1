import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { kernelConfigSchema } from '../../src/kernel/config/schema.js'
import { BACKENDS, loadConfig } from '../../src/kernel/index.js'
import { codeSpans, repoFile, section, tableRows } from './markdown.js'

/** scripts/configuration-doc.js (npm run docs:config), which reads the compiled schemas in dist/. */
interface ConfigurationDoc {
  configurationSections(): Promise<{ name: string; rows: { key: string; environment: string }[] }[]>
  renderConfigurationDoc(document: string): Promise<string>
}

const generatorUrl = new URL('../../scripts/configuration-doc.js', import.meta.url).href
const FIX = 'run "npm run docs:config" (and write the comment of any key it names)'

let generator: ConfigurationDoc
let document: string
let sectionsOfSchemas: Awaited<ReturnType<ConfigurationDoc['configurationSections']>>

beforeAll(async () => {
  generator = (await import(generatorUrl)) as ConfigurationDoc
  document = repoFile('docs/configuration.md')
  sectionsOfSchemas = await generator.configurationSections()
})

describe('docs/configuration.md', () => {
  it('has a row for every configuration key of the kernel and of every plugin', () => {
    const rows = new Set(tableRows(document).map((cells) => cells[0]))
    const keys = sectionsOfSchemas.flatMap((s) => s.rows.map((row) => `\`${row.key}\``))
    expect(keys.length).toBeGreaterThan(50)
    expect(
      keys.filter((key) => !rows.has(key)),
      `keys missing from docs/configuration.md: ${FIX}`,
    ).toEqual([])
  })

  it('shows each key with the type, default and environment variable of the schemas (npm run docs:config)', async () => {
    const expected = await generator.renderConfigurationDoc(document)
    expect(document, `docs/configuration.md is out of date: ${FIX}`).toBe(expected)
  })

  it('lists every plugin of the catalog, with its dependencies, in the Plugins table', async () => {
    const table = new Map(
      tableRows(section(document, '## Plugins', true)).map((cells) => [codeSpans(cells[0]!)[0]!, codeSpans(cells[1]!)]),
    )
    expect([...table.keys()].sort(), 'plugins of the Plugins table').toEqual([...CATALOG.names].sort())
    for (const plugin of await CATALOG.load(CATALOG.names)) {
      expect(table.get(plugin.name)?.sort(), `dependencies of ${plugin.name}`).toEqual(
        [...(plugin.dependsOn ?? [])].sort(),
      )
    }
  })

  it('names every backend of the queue, storage and state keys', () => {
    const table = new Map(tableRows(section(document, '### `queue`, `storage`, `state`')).map((c) => [c[0], c[1]!]))
    const missing: string[] = []
    for (const [role, choices] of Object.entries(BACKENDS)) {
      for (const [choice, plugin] of Object.entries(choices)) {
        const cell = table.get(`\`${role}\``) ?? ''
        if (!cell.includes(`\`${choice}\``) || (plugin && !cell.includes(`\`${plugin}\``)))
          missing.push(`${role}: ${choice}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('names every short environment variable and every string key in the Environment variables section', () => {
    const loader = repoFile('src/kernel/config/load.ts')
    const environment = section(document, '## Environment variables')
    const aliases = [.../const ENV_ALIASES[^=]*=\s*\{([\s\S]*?)\n\}/.exec(loader)![1]!.matchAll(/(MEDIACTL_\w+)\s*:/g)]
    expect(aliases.length).toBeGreaterThan(5)
    expect(aliases.map((m) => m[1]).filter((name) => !environment.includes(`\`${name}\``))).toEqual([])
    const stringKeys = [.../const STRING_KEYS = new Set\(\[([\s\S]*?)\]\)/.exec(loader)![1]!.matchAll(/'([^']+)'/g)]
    expect(stringKeys.length).toBeGreaterThan(5)
    expect(stringKeys.map((m) => m[1]).filter((key) => !environment.includes(`\`${key}\``))).toEqual([])
  })

  describe('YAML examples', () => {
    let dir: string
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mediactl-doc-yaml-'))
    })
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    const blocks = [...repoFile('docs/configuration.md').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!)

    it('has examples', () => expect(blocks.length).toBeGreaterThan(5))

    it.each(blocks.map((text, i) => [i + 1, text]))('example %i loads and each section is valid', async (_, text) => {
      const values = (parseYaml(text as string) ?? {}) as Record<string, unknown>
      const kernelKeys = Object.keys(kernelConfigSchema.shape)
      expect(
        Object.keys(values).filter((key) => !kernelKeys.includes(key) && !CATALOG.names.includes(key)),
        'unknown top-level keys',
      ).toEqual([])
      const file = join(dir, 'example.yaml')
      writeFileSync(file, text as string)
      const { config } = loadConfig({ file, env: {}, cwd: dir })
      expect(
        config.plugins.filter((name) => !CATALOG.names.includes(name)),
        'unknown plugins',
      ).toEqual([])
      for (const plugin of await CATALOG.load(Object.keys(values).filter((key) => CATALOG.names.includes(key)))) {
        const result = plugin.config?.safeParse(values[plugin.name] ?? {})
        expect(result?.success === false ? result.error.issues : [], `the ${plugin.name} section`).toEqual([])
      }
    })
  })
})
