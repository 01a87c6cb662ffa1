import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { createServer, type Server as NetServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, cliJson, removeDir, serve, tempDir } from './harness.js'

/**
 * What an operator meets first: mistakes named before anything is written, URLs that follow
 * the configured port and public URL, a taken port named with the setting to change.
 */
const dirs: string[] = []
const fresh = (): string => {
  const dir = tempDir()
  dirs.push(dir)
  return dir
}
const ADMIN = ['--admin-username', 'root', '--admin-email', 'root@example.org']

afterAll(() => dirs.forEach(removeDir))

describe('mediactl init validates the whole configuration before writing anything', () => {
  it('a typo in a plugin section of the config file: exit 1, the closest key named, no secret or key written', async () => {
    const dir = fresh()
    writeFileSync(join(dir, 'mediactl.yaml'), 'data_dir: ./data\nfiles:\n  max_file_sise: 10\n')
    const result = await cli(['init', ...ADMIN], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('files: unknown key "max_file_sise" (did you mean "max_file_size"?)')
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(existsSync(join(dir, 'data'))).toBe(false)
    expect(readdirSync(dir)).toEqual(['mediactl.yaml'])
  })

  it('a typo in the environment: no config file, no data dir', async () => {
    const dir = fresh()
    const result = await cli(['init', ...ADMIN], { cwd: dir, env: { MEDIACTL_PLUGINS__DISABLE: 'portl' } })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('"portl", which is not enabled (did you mean "portal"?)')
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('printed URLs follow the configuration', () => {
  it('init prints the URL of MEDIACTL_PORT, or of base_url when set', async () => {
    const dir = fresh()
    const byPort = await cliJson<{ url: string }>(['init', ...ADMIN], { cwd: dir, env: { MEDIACTL_PORT: '9123' } })
    expect(byPort.url).toBe('http://localhost:9123')
    const again = await cliJson<{ url: string }>(['init'], {
      cwd: dir,
      env: { MEDIACTL_BASE_URL: 'https://media.example.org/tv' },
    })
    expect(again.url).toBe('https://media.example.org/tv')
    const platform = await cliJson<{ url: string }>(['platform', 'create', '--name', 'Campus'], {
      cwd: dir,
      env: { MEDIACTL_PORT: '9124' },
    })
    expect(platform.url).toBe('http://localhost:9124/platform/campus')
  })
})

describe('serve on a taken port', () => {
  let dir: string
  let holder: NetServer
  let port: number
  beforeAll(async () => {
    dir = fresh()
    await cliJson(['init', ...ADMIN], { cwd: dir })
    holder = createServer()
    port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    )
  }, 120_000)
  afterAll(() => new Promise((resolve) => holder.close(resolve)))

  it('exits 1 naming the address and the setting to change, without a stack', async () => {
    const result = await cli(['serve', '--host', '127.0.0.1', '--port', String(port)], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `mediactl: 127.0.0.1:${port} is already in use by another process (another mediactl serve?): stop what uses it or choose another http.port (MEDIACTL_PORT, serve --port)\n`,
    )
  })

  it('a taken metrics port names metrics.port', async () => {
    const result = await cli(['serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: dir,
      env: { MEDIACTL_METRICS__PORT: String(port) },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`)
    expect(result.stderr).toContain('metrics.port (MEDIACTL_METRICS__PORT; 0: no metrics)')
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('serves once the port is free, on the URL it prints', async () => {
    const server = await serve([], { cwd: dir })
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect((await fetch(`${server.url}/health`)).status).toBe(200)
    } finally {
      await server.stop()
    }
  })
})
