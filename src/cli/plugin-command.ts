import { Args, type Command, Flags } from '@oclif/core'
import { type OwnedCommand, pluginCommands, runPluginCommand } from '../app/plugin-commands.js'
import type { CommandArg, CommandFlag, CommandInput, CommandOutput } from '../kernel/index.js'
import { BaseCommand } from './base-command.js'
import { table } from './format.js'

function oclifFlag(flag: CommandFlag) {
  switch (flag.type) {
    case 'integer':
      return Flags.integer({ description: flag.description, required: flag.required, default: flag.default })
    case 'boolean':
      return Flags.boolean({ description: flag.description, default: flag.default })
    default:
      return flag.multiple
        ? Flags.string({
            description: flag.description,
            required: flag.required,
            options: flag.options && [...flag.options],
            multiple: true,
            // One value per flag: the next word is never taken as another value.
            multipleNonGreedy: true,
          })
        : Flags.string({
            description: flag.description,
            required: flag.required,
            default: flag.default,
            options: flag.options && [...flag.options],
          })
  }
}

function oclifArg(arg: CommandArg) {
  return Args.string({ description: arg.description, required: arg.required })
}

const mapValues = <V, W>(record: Record<string, V>, map: (value: V) => W): Record<string, W> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))

/**
 * The oclif command of a plugin's declared command: its flags, arguments and help made from
 * the declaration; `run` through the lifecycle of src/app; the result printed by the plugin's
 * printer, or as JSON with --json (BaseCommand's flags, errors and exit codes).
 */
export function oclifCommand(owned: OwnedCommand): typeof Command {
  const { command } = owned
  const declared = command.flags ?? {}
  return class PluginCommand extends BaseCommand<typeof Command> {
    static override summary = command.summary
    static override description = command.description
    static override examples = (command.examples ?? []).map((line) => line.replace(/^mediactl /, '<%= config.bin %> '))
    static override flags = mapValues(declared, oclifFlag)
    static override args = mapValues(command.args ?? {}, oclifArg)

    async run(): Promise<unknown> {
      const given = this.flags as Record<string, unknown>
      const input = {
        flags: Object.fromEntries(Object.keys(declared).map((name) => [name, given[name]])),
        args: this.args as Record<string, string | undefined>,
      } as CommandInput
      const result = await runPluginCommand(owned, input, this.configOptions())
      const out: CommandOutput = {
        line: (text) => this.log(text),
        table: (rows) => this.log(table(rows)),
        note: (text) => this.progress(text),
      }
      command.print?.(result, out, input)
      return result
    }
  }
}

/** The plugins' commands as oclif's explicit list wants them: `webhooks:create`. */
export function pluginOclifCommands(): Record<string, typeof Command> {
  return Object.fromEntries(
    pluginCommands().map((owned) => [owned.command.name.replaceAll(' ', ':'), oclifCommand(owned)]),
  )
}
