import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/commands.js'
import type { Kernel } from '../../src/kernel/index.js'
import { bootOn } from '../helpers/kernel.js'
import { repoFile, section, sections, tableRows } from './markdown.js'

const document = repoFile('docs/cli.md')
const globalFlags = section(document, '### Global flags')

interface FlagLike {
  char?: string
  options?: readonly string[]
  hidden?: boolean
}
interface ArgLike {
  options?: readonly string[]
}
interface CommandLike {
  flags?: Record<string, FlagLike>
  baseFlags?: Record<string, FlagLike>
  args?: Record<string, ArgLike>
  enableJsonFlag?: boolean
}

/** The command as typed: `user:create` is `mediactl user create`. */
const typed = (id: string): string => `mediactl ${id.replaceAll(':', ' ')}`

/** The section `## \`mediactl user create\`` (or `## \`mediactl user key <username>\``) of a command. */
function commandSection(id: string): string | undefined {
  const name = typed(id)
  for (const [heading, text] of sections(document, '## ')) {
    if (heading.startsWith(`## \`${name}\``) || heading.startsWith(`## \`${name} `)) return text
  }
  return undefined
}

const commands = Object.entries(COMMANDS as unknown as Record<string, CommandLike>)

describe('docs/cli.md', () => {
  it('has a section for every command', () => {
    expect(commands.length).toBeGreaterThan(10)
    expect(
      commands.map(([id]) => typed(id)).filter((_, i) => !commandSection(commands[i]![0])),
      'commands without a section in docs/cli.md',
    ).toEqual([])
  })

  describe.each(commands)('%s', (id, command) => {
    it('documents each of its flags (with its short form and values) in the flag table of its section', () => {
      const text = commandSection(id) ?? ''
      const flagCells = tableRows(text).map((cells) => cells[0]!)
      const inTable = (written: string): boolean => flagCells.some((cell) => cell.includes(`\`${written}`))
      const missing: string[] = []
      for (const [name, flag] of Object.entries(command.flags ?? {})) {
        if (flag.hidden) continue
        if (!inTable(`--${name}`)) missing.push(`--${name}`)
        if (flag.char && !inTable(`-${flag.char}\``)) missing.push(`-${flag.char}`)
        for (const value of flag.options ?? []) if (!text.includes(`\`${value}\``)) missing.push(`--${name} ${value}`)
      }
      expect(missing, `flags of "${typed(id)}" missing from its section of docs/cli.md`).toEqual([])
    })

    it('documents its shared flags (--config, --json) in the Global flags table', () => {
      const missing: string[] = []
      const flagCells = tableRows(globalFlags).map((cells) => cells[0]!)
      const inTable = (written: string): boolean => flagCells.some((cell) => cell.includes(`\`${written}`))
      for (const [name, flag] of Object.entries(command.baseFlags ?? {})) {
        if (flag.hidden) continue
        if (!inTable(`--${name}`)) missing.push(`--${name}`)
        if (flag.char && !inTable(`-${flag.char}\``)) missing.push(`-${flag.char}`)
      }
      if (command.enableJsonFlag && !inTable('--json`')) missing.push('--json')
      expect(missing, 'flags missing from the Global flags table of docs/cli.md').toEqual([])
    })

    it('shows each argument in its heading, with its values', () => {
      const text = commandSection(id) ?? ''
      const heading = text.split('\n')[0]!
      const args = Object.entries(command.args ?? {})
      const placeholders = heading.match(/<[^>]+>|\[[^\]]+\]/g) ?? []
      expect(placeholders.length, `arguments of "${typed(id)}" in its heading: ${heading}`).toBe(args.length)
      const values = args.flatMap(([, arg]) => arg.options ?? [])
      expect(values.filter((value) => !text.includes(`\`${value}\``))).toEqual([])
    })
  })

  it('lists every command in the README command table', () => {
    const table = section(repoFile('README.md'), '## Using the CLI')
    expect(
      commands.map(([id]) => typed(id)).filter((name) => !table.includes(`| \`${name}`)),
      'commands missing from the table of README.md, Using the CLI',
    ).toEqual([])
  })

  describe('job types', () => {
    let dir: string
    let kernel: Kernel
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mediactl-cli-doc-'))
      kernel = await bootOn(dir)
    })
    afterAll(async () => {
      await kernel?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('names every job type the plugins declare, and none they do not', () => {
      const types = [...kernel.jobTypes.handlers().keys()]
      expect(types.length).toBeGreaterThan(0)
      const jobsList = section(document, '## `mediactl jobs list`')
      expect(
        types.filter((type) => !jobsList.includes(`\`${type}\``)),
        'job types missing from jobs list',
      ).toEqual([])
      // Anything written like a job type of a plugin that declares jobs (`encoding.<word>`) must be one,
      // or a configuration key of that plugin (`encoding.token_ttl`).
      const prefixes = new Set(types.map((type) => type.split('.')[0]!))
      const configKeys = new Set(
        [...prefixes].flatMap((plugin) =>
          Object.keys((kernel.config[plugin] as Record<string, unknown> | undefined) ?? {}).map(
            (key) => `${plugin}.${key}`,
          ),
        ),
      )
      const named = (document.match(/\b[a-z][a-z-]*\.[a-z][a-z_]*\b/g) ?? []).filter((name) =>
        prefixes.has(name.split('.')[0]!),
      )
      expect(
        [...new Set(named)].filter((name) => !types.includes(name) && !configKeys.has(name)),
        'job types named in docs/cli.md that no plugin declares',
      ).toEqual([])
    })
  })
})
