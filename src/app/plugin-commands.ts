import { CATALOG_COMMANDS } from '../catalog.js'
import { type CommandContext, type CommandInput, HttpError, type PluginCommand, UserError } from '../kernel/index.js'
import { type BootRequest, readConfig, withKernel } from './boot.js'

/** A command a plugin declares, with the plugin that owns it. */
export interface OwnedCommand {
  plugin: string
  command: PluginCommand
}

/** Every plugin's commands, whether the plugin is enabled or not (the CLI lists them all). */
export function pluginCommands(): OwnedCommand[] {
  return Object.entries(CATALOG_COMMANDS).flatMap(([plugin, commands]) =>
    commands.map((command) => ({ plugin, command: command as PluginCommand })),
  )
}

/** Refused fields as the flags that carry them: `--max-users must be between ...; --url ...`. */
function flagLine(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([field, message]) => `--${field.replaceAll('_', '-')} ${message}`)
    .join('; ')
}

/**
 * Runs a plugin's command: refuses (saying how to enable it) when its plugin is disabled,
 * boots the kernel (refusing while migrations are pending), runs it with the kernel's
 * services, closes. A 412 of the plugin's services, which the API answers with the same
 * field names, becomes a UserError naming those fields in the command's words.
 */
export async function runPluginCommand<R>(
  { plugin, command }: OwnedCommand,
  input: CommandInput,
  request: BootRequest,
): Promise<R> {
  if (!readConfig(request).plugins.includes(plugin)) {
    throw new UserError(`the ${plugin} plugin is not enabled`, {
      hint: `enable it (plugins.enable, MEDIACTL_PLUGINS__ENABLE=${plugin}; or take it out of plugins.disable) to use "mediactl ${command.name}"`,
    })
  }
  return withKernel(request, async (kernel) => {
    const ctx: CommandContext = {
      kernelConfig: kernel.config,
      links: kernel.services.links,
      reader: kernel.services.reader,
      em: () => kernel.em(),
      emit: kernel.emit,
      use: (key) => kernel.exposed(key),
    }
    try {
      return (await command.run(ctx, input)) as R
    } catch (error) {
      if (error instanceof HttpError && error.status === 412 && Object.keys(error.fields).length) {
        const line = command.refused?.(error.fields, input) ?? flagLine(error.fields)
        throw new UserError(line, { fields: error.fields, cause: error })
      }
      throw error
    }
  })
}
