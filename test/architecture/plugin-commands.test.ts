import { describe, expect, it } from 'vitest'
import { CATALOG, CATALOG_COMMANDS } from '../../src/catalog.js'
import { COMMANDS } from '../../src/cli/commands.js'

describe("the plugins' commands", () => {
  it("the CLI's list (src/catalog.ts) is every plugin manifest's `commands`, the very declarations", async () => {
    const plugins = await CATALOG.load(CATALOG.names)
    const declared = Object.fromEntries(
      plugins.filter((plugin) => plugin.commands?.length).map((plugin) => [plugin.name, plugin.commands]),
    )
    expect(Object.keys(CATALOG_COMMANDS).sort()).toEqual(Object.keys(declared).sort())
    for (const [name, commands] of Object.entries(CATALOG_COMMANDS)) {
      expect(commands, name).toEqual(declared[name])
      commands.forEach((command, i) => expect(command, `${name}: ${command.name}`).toBe(declared[name]![i]))
    }
  })

  it('each is a CLI command under its name, its topic being its first word', () => {
    const ids = Object.values(CATALOG_COMMANDS).flatMap((commands) =>
      commands.map((command) => command.name.replaceAll(' ', ':')),
    )
    expect(ids).toEqual(expect.arrayContaining(['platform:create', 'user:create', 'webhooks:create']))
    for (const id of ids) expect(Object.keys(COMMANDS), id).toContain(id)
  })
})
