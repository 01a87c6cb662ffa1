import { type Command } from '@oclif/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BaseCommand, userMistake } from '../../src/cli/base-command.js'
import { ConfigError, HttpError, UserError, invalid } from '../../src/kernel/index.js'
import { ROOT } from '../e2e/harness.js'

/** Runs a command whose run throws `error`: its exit code, stdout and stderr. */
async function failing(error: Error, argv: string[] = []): Promise<{ code: unknown; stdout: string; stderr: string }> {
  class Failing extends BaseCommand<typeof Command> {
    async run(): Promise<never> {
      throw error
    }
  }
  let stdout = ''
  let stderr = ''
  // oclif writes through console.log and console.error; the internal error's trace straight to stderr.
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void (stdout += `${String(text)}\n`))
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void (stderr += `${String(text)}\n`))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
  const code = await Failing.run(argv, ROOT).then(
    () => 0,
    (exit: { oclif?: { exit?: number } }) => exit.oclif?.exit,
  )
  vi.restoreAllMocks()
  return { code, stdout, stderr }
}

afterEach(() => vi.restoreAllMocks())

describe("the CLI's errors", () => {
  it("prints a user's mistake as one line with its hint, exit code 1, no stack", async () => {
    const mistake = new UserError('no platform "x"', { hint: 'list them with GET /platforms' })
    expect(await failing(mistake)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mediactl: no platform "x": list them with GET /platforms\n',
    })
  })

  it('with --json, prints the message and the refused fields by their API names', async () => {
    const refused = new UserError('--url must start with https://', { fields: { url: 'must start with https://' } })
    const result = await failing(refused, ['--json'])
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toEqual({
      error: '--url must start with https://',
      fields: { url: 'must start with https://' },
    })
    expect(result.stderr).toBe('')
  })

  it('prints anything else with its stack and its request id, exit code 1, --json or not', async () => {
    const bug = Object.assign(new TypeError("Cannot read properties of undefined (reading 'id')"), {
      requestId: 'r-42',
    })
    const result = await failing(bug)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    const trace =
      /^mediactl: internal error: Cannot read properties of undefined \(reading 'id'\) \(request r-42\)\nTypeError: .*\n\s+at /
    expect(result.stderr).toMatch(trace)
    const json = await failing(bug, ['--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({
      error: "Cannot read properties of undefined (reading 'id')",
      internal: true,
      request_id: 'r-42',
    })
    expect(json.stderr).toMatch(trace)
  })

  it('counts configuration errors and the refusals (4xx) of services as mistakes, not 5xx', () => {
    expect(userMistake(new ConfigError('unknown configuration key(s): "colour"'))).toBeInstanceOf(UserError)
    expect(userMistake(invalid({ email: 'is already used on this platform' }))?.fields).toEqual({
      email: 'is already used on this platform',
    })
    expect(userMistake(new HttpError(500, 'Internal error'))).toBeUndefined()
    expect(userMistake(new Error('connect ECONNREFUSED'))).toBeUndefined()
  })
})
