import { Command, Flags, type Interfaces } from '@oclif/core'
import type { LoadConfigOptions } from '../kernel/index.js'

/**
 * Shared by every command: `--config`, `--json` (prints the result as JSON), and errors
 * turned into one clear line with exit code 1 instead of a stack trace.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    config: Flags.string({
      char: 'c',
      description:
        'Config file to merge over the defaults [default: $MEDIACTL_CONFIG, else ./mediactl.yaml if present]',
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
  protected args!: Interfaces.InferredArgs<T['args']>

  override async init(): Promise<void> {
    await super.init()
    const { flags, args } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as typeof this.flags
    this.args = args as typeof this.args
  }

  /** Config loading options from the flags. */
  protected configOptions(overrides?: Record<string, unknown>): LoadConfigOptions {
    return { file: this.flags.config, overrides }
  }

  /** Prints progress to stderr so stdout stays clean for --json. */
  protected progress(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`  ${message}\n`)
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: unknown }): Promise<unknown> {
    if (error.oclif) return super.catch(error)
    if (this.jsonEnabled()) {
      this.logJson({ error: error.message })
      this.exit(1)
    }
    this.logToStderr(`mediactl: ${error.message}`)
    if (process.env.MEDIACTL_DEBUG) this.logToStderr(error.stack ?? '')
    return this.exit(1)
  }
}
