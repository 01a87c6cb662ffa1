import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, cliJson, removeDir, tempDir } from './harness.js'

/**
 * Configuration: default.yaml, then the config file (--config / MEDIACTL_CONFIG /
 * ./mediactl.yaml), then MEDIACTL_* variables; every error names the key and exits 1.
 * And `--help` on every command.
 */

let dir: string
beforeAll(() => {
  dir = tempDir()
})
afterAll(() => removeDir(dir))

describe.concurrent('invalid configuration', () => {
  it.each([
    { variable: 'MEDIACTL_PORT', value: 'abc', message: '  http.port: Expected number, received string' },
    { variable: 'MEDIACTL_PORT', value: '70000', message: '  http.port: Number must be less than or equal to 65535' },
    {
      variable: 'MEDIACTL_LOG_LEVEL',
      value: 'loud',
      message: "  log_level: Invalid enum value. Expected 'trace' | 'debug'",
    },
    { variable: 'MEDIACTL_BASE_URL', value: 'media.example.org', message: '  base_url: Invalid url' },
    {
      variable: 'MEDIACTL_DATABASE_URL',
      value: 'mysql://db/x',
      message: '  database.url: a sqlite:// or postgres:// URL',
    },
  ])('$variable=$value exits 1 and names the key and the expected value', async ({ variable, value, message }) => {
    const result = await cli(['migrate', 'status'], { cwd: dir, env: { [variable]: value } })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.startsWith(`mediactl: invalid configuration:\n${message}`)).toBe(true)
  })

  it('doctor reports an invalid value as a failed config check with a fix', async () => {
    const result = await cli(['doctor'], { cwd: dir, env: { MEDIACTL_PORT: 'abc' } })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^✗ config +invalid configuration:\n {2}http\.port: Expected number/)
    expect(result.stdout).toContain('→ correct the key named above')
  })

  it('--config naming a missing file exits 1 and says how to create it', async () => {
    const missing = join(dir, 'nowhere.yaml')
    const expected = `mediactl: config file ${missing} does not exist; create it or run "mediactl init --config ${missing}"\n`
    const flag = await cli(['migrate', 'status', '--config', 'nowhere.yaml'], { cwd: dir })
    expect(flag).toMatchObject({ code: 1, stdout: '', stderr: expected })
    const env = await cli(['seed'], { cwd: dir, env: { MEDIACTL_CONFIG: missing } })
    expect(env).toMatchObject({ code: 1, stdout: '', stderr: expected })
  })
})

describe('keys in the config file', () => {
  it('an unknown top-level key exits 1 naming it, and doctor says so under config', async () => {
    const other = tempDir()
    try {
      writeFileSync(join(other, 'mediactl.yaml'), 'colour: blue\nhttp:\n  port: 9000\n')
      const result = await cli(['migrate', 'status'], { cwd: other })
      expect(result.code).toBe(1)
      expect(result.stderr).toBe('mediactl: unknown configuration key(s): "colour"; see docs/configuration.md\n')

      const doctor = await cli(['doctor'], { cwd: other })
      expect(doctor.code).toBe(1)
      expect(doctor.stdout.split('\n').slice(0, 3)).toEqual([
        `✗ config${' '.repeat(17)}unknown configuration key(s): "colour"; see docs/configuration.md`,
        `${' '.repeat(25)}→ correct the key named above (docs/configuration.md lists every key)`,
        '',
      ])
    } finally {
      removeDir(other)
    }
  })

  it('an unknown key inside a section exits 1 naming it', async () => {
    const other = tempDir()
    try {
      writeFileSync(join(other, 'mediactl.yaml'), 'http:\n  colour: blue\n')
      const result = await cli(['migrate', 'status'], { cwd: other })
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        `mediactl: invalid configuration (${join(other, 'mediactl.yaml')}):\n  http: unknown key "colour"\n`,
      )
    } finally {
      removeDir(other)
    }
  })

  it('the config file overrides the defaults and MEDIACTL_* variables override the file', async () => {
    const other = tempDir()
    try {
      const file = join(other, 'site.yaml')
      const content = 'data_dir: ./store\nhttp:\n  port: 9999\n'
      writeFileSync(file, content)
      const first = await cliJson(['init', '--config', 'site.yaml'], { cwd: other })
      expect(first).toMatchObject({
        changed: true,
        config_file: file,
        data_dir: join(other, 'store'),
        url: 'http://localhost:9999',
      })
      expect(first.steps).not.toContain(`wrote config file ${file}`)
      expect(readFileSync(file, 'utf8')).toBe(content)

      const again = await cliJson(['init'], {
        cwd: other,
        env: { MEDIACTL_CONFIG: file, MEDIACTL_PORT: '7777', MEDIACTL_HOST: '127.0.0.1' },
      })
      expect(again).toMatchObject({ changed: false, data_dir: join(other, 'store'), url: 'http://127.0.0.1:7777' })
    } finally {
      removeDir(other)
    }
  })
})

describe.concurrent('--help', () => {
  it.each([
    { name: 'init', mentions: ['--admin-username', '--admin-email', '--admin-password', '--platform-name'] },
    { name: 'migrate', mentions: ['[ACTION]', 'up|down|status', '--steps'] },
    { name: 'seed', mentions: ['Idempotent'] },
    { name: 'serve', mentions: ['--port', '--host', '--migrate', '--init', 'SIGTERM'] },
    {
      name: 'user create',
      mentions: ['--platform', '--profile', '--username', '--email', '--password', '--admin'],
    },
    { name: 'user key', mentions: ['USERNAME'] },
    { name: 'platform create', mentions: ['--name', '--max-users', '--max-space'] },
    { name: 'doctor', mentions: ['Exits with code 1'] },
  ])('mediactl $name --help', async ({ name, mentions }) => {
    const command = name.split(' ')
    const result = await cli([...command, '--help'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`USAGE\n  $ mediactl ${command.join(' ')}`)
    for (const text of [...mentions, '--config', '--json']) expect(result.stdout).toContain(text)
  })

  it('mediactl --help lists every command', async () => {
    const result = await cli(['--help'], { cwd: dir })
    expect(result.code).toBe(0)
    for (const name of ['init', 'migrate', 'seed', 'serve', 'doctor', 'user', 'platform']) {
      expect(result.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'))
    }
  })
})
