import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { httpProcessNumber, httpProcesses } from '../../src/app/serve-cluster.js'
import { loadConfig } from '../../src/kernel/config/load.js'

describe('http.processes', () => {
  let dir = ''
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mediactl-processes-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const config = (env: Record<string, string>) => loadConfig({ env, cwd: dir }).config

  it('0 (the default): one process on SQLite, one per CPU core on PostgreSQL', () => {
    expect(config({}).http.processes).toBe(0)
    expect(httpProcesses(config({}), 8)).toBe(1)
    expect(httpProcesses(config({ MEDIACTL_DATABASE_URL: 'sqlite:///tmp/x.sqlite' }), 8)).toBe(1)
    expect(httpProcesses(config({ MEDIACTL_DATABASE_URL: 'postgres://u@127.0.0.1/db' }), 8)).toBe(8)
    expect(httpProcesses(config({ MEDIACTL_DATABASE_URL: 'postgres://u@127.0.0.1/db' }), 1)).toBe(1)
  })

  it('a number given is used on either database (MEDIACTL_HTTP__PROCESSES)', () => {
    expect(httpProcesses(config({ MEDIACTL_HTTP__PROCESSES: '3' }), 8)).toBe(3)
    const pg = { MEDIACTL_DATABASE_URL: 'postgres://u@127.0.0.1/db', MEDIACTL_HTTP__PROCESSES: '1' }
    expect(httpProcesses(config(pg), 8)).toBe(1)
  })

  it('refuses a negative, fractional or huge count, naming the key', () => {
    for (const bad of ['-1', '1.5', '257']) {
      expect(() => config({ MEDIACTL_HTTP__PROCESSES: bad })).toThrow(/http\.processes/)
    }
  })

  it('MEDIACTL_HTTP_PROCESS (what the primary tells its processes) is no config key', () => {
    expect(() => config({ MEDIACTL_HTTP_PROCESS: '2' })).not.toThrow()
    // Outside a node:cluster worker the variable means nothing.
    expect(httpProcessNumber()).toBeUndefined()
  })
})
