import { Command, Flags, type Interfaces } from '@oclif/core'
import { HttpError, type LoadConfigOptions, UserError } from '../kernel/index.js'

/**
 * A user's mistake as the CLI reports it: a UserError, or the refusal (4xx) of a service a
 * command called, which names the fields the API names.
 */
export function userMistake(error: unknown): UserError | undefined {
  if (error instanceof UserError) return error
  if (error instanceof HttpError && error.status < 500) return new UserError(error.message, { fields: error.fields })
  return undefined
}

/**
 * Shared by every command: `--config`, `--json` (prints the result as JSON), and errors: a
 * user's mistake (UserError) as one line saying what to do, anything else with its stack
 * (a bug or an outage, for a bug report); both exit 1, unless the error carries its own `exitCode`.
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

  protected override async catch(
    error: Error & { exitCode?: number; oclif?: unknown; requestId?: string },
  ): Promise<unknown> {
    // Usage errors (unknown flag, missing argument): oclif's own message and exit code 2.
    if (error.oclif) return super.catch(error)
    const mistake = userMistake(error)
    if (mistake) {
      const fields = Object.keys(mistake.fields).length ? { fields: mistake.fields } : {}
      if (this.jsonEnabled()) {
        this.logJson({ error: mistake.message, ...fields })
      } else {
        this.logToStderr(`mediactl: ${mistake.message}`)
        if (process.env.MEDIACTL_DEBUG) this.logToStderr(error.stack ?? '')
      }
      // A mistake may carry its own code: 69 for a dependency that never answered (start-wait.ts), 78 for an HTTP process's refusal.
      return this.exit(typeof error.exitCode === 'number' ? error.exitCode : 1)
    }
    // Not the user's doing: the stack (and the request id that finds it in the log) for a bug report.
    const requestId = typeof error.requestId === 'string' ? error.requestId : undefined
    if (this.jsonEnabled()) {
      this.logJson({ error: error.message, internal: true, ...(requestId ? { request_id: requestId } : {}) })
    }
    // On stderr with --json too (logToStderr is silent then): the trace is what a bug report needs.
    process.stderr.write(
      `mediactl: internal error: ${error.message}${requestId ? ` (request ${requestId})` : ''}\n${error.stack ?? String(error)}\n`,
    )
    return this.exit(1)
  }
}
