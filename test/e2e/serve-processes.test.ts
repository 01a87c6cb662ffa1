import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_PG_URL, freshDatabase } from '../helpers/database.js'
import { DigestClient, rawRequest } from '../helpers/digest-client.js'
import { freePort } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'
import { cookieOf, csrfOf, send } from '../plugins/console/console.helpers.js'
import { type Server, alive, childrenOf, cli, cliJson, removeDir, serve, tempDir } from './harness.js'

/** The parsed JSON log lines of a process's stdout. */
const logLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/** Sends `count` unauthenticated requests at once: each on its own connection, so the primary spreads them. */
const burst = (url: string, count: number): Promise<number[]> =>
  Promise.all(Array.from({ length: count }, () => rawRequest(url + '/', 'GET').then((r) => r.status)))

describe('mediactl serve --processes 2 (SQLite)', () => {
  let dir = ''
  let server: Server
  let client: DigestClient
  let metricsPort = 0

  beforeAll(async () => {
    dir = tempDir()
    metricsPort = await freePort()
    writeFileSync(join(dir, 'mediactl.yaml'), `data_dir: ./data\nmetrics: { port: ${metricsPort} }\n`)
    const init = await cliJson<{ api_key: string }>(['init'], { cwd: dir })
    server = await serve(['--processes', '2'], { cwd: dir })
    client = new DigestClient(server.url, 'admin', init.api_key)
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    removeDir(dir)
  })

  /** The logged requests of the console session's user to their own record. */
  const sessionRequests = () =>
    logLines(server.stdout()).filter((l) => l.msg === 'request' && l.path === '/user/admin' && l.user === 'admin')

  it('says so, and runs two HTTP processes that both answer on the one port', async () => {
    expect(server.stdout()).toMatch(/mediactl serving on \S+ \(public URL \S+\) with 2 processes; stop with Ctrl-C/)
    expect(childrenOf(server.child.pid!)).toHaveLength(2)
    expect(await burst(server.url, 20)).toEqual(Array(20).fill(401))
    await waitFor(() => logLines(server.stdout()).filter((l) => l.msg === 'request').length >= 20, {
      message: 'the 20 requests logged',
    })
    const by = new Set(logLines(server.stdout()).flatMap((l) => (l.msg === 'request' ? [l.http_process] : [])))
    expect(by).toEqual(new Set([1, 2]))
    expect((await client.get('/platforms')).status).toBe(200)
  })

  it('keeps a console session on both processes, and a sign-out on one ends it on both', async () => {
    const { url: link } = await cliJson<{ url: string }>(['user', 'sign-in-link', 'admin'], { cwd: dir })
    const password = 'a password long enough'
    const signedIn = await send(`${server.url}${new URL(link).pathname}`, { form: { password, confirm: password } })
    expect(signedIn.status).toBe(303)
    const cookie = `mediactl_session=${cookieOf(signedIn, 'mediactl_session')}`
    const csrf = csrfOf((await send(`${server.url}/console`, { headers: { cookie } })).body)
    const headers = { cookie, 'x-mediactl-csrf': csrf, origin: new URL(server.publicUrl).origin }
    // Each on its own connection, so the primary spreads them over both processes.
    const asSession = (count: number) =>
      Promise.all(
        Array.from({ length: count }, () => send(`${server.url}/user/admin`, { headers }).then((a) => a.status)),
      )
    expect(await asSession(20)).toEqual(Array(20).fill(200))
    await waitFor(() => sessionRequests().length >= 20, { message: 'the 20 session requests logged' })
    expect(new Set(sessionRequests().map((l) => l.http_process))).toEqual(new Set([1, 2]))

    const out = await send(`${server.url}/console/sign-out`, {
      headers: { cookie, origin: headers.origin },
      form: { csrf },
    })
    expect(out.status).toBe(303)
    expect(await asSession(20)).toEqual(Array(20).fill(401))
  })

  it('runs the jobs in process 1 only', () => {
    const running = logLines(server.stdout()).filter((l) => l.msg === 'running jobs')
    expect(running.map((l) => l.http_process)).toEqual([1])
  })

  it('serves the sum of every process on the metrics port', async () => {
    const scrape = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
      return [...text.matchAll(/^http_server_request_duration_seconds_count\{[^}]*status_code="401"[^}]*\} (\d+)/gm)]
        .map((m) => Number(m[1]))
        .reduce((a, b) => a + b, 0)
    }
    const before = await scrape()
    await burst(server.url, 10)
    // Each process counts its own; the primary adds them up.
    await waitFor(async () => (await scrape()) === before + 10, { message: '10 more 401 counted' })
    // A value every process reads from the database is not multiplied by the processes.
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    expect(text).toMatch(/^# TYPE mediactl_jobs gauge/m)
  })

  it('starts again an HTTP process that was killed; the port keeps answering meanwhile', async () => {
    const restarts = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
      return Number(/^mediactl_http_process_restarts_total (\d+)$/m.exec(text)?.[1])
    }
    expect(await restarts()).toBe(0)
    const [first] = childrenOf(server.child.pid!)
    process.kill(first!, 'SIGKILL')
    await waitFor(() => server.stdout().includes('HTTP process exited; starting it again'), {
      message: 'the primary seeing the exit',
    })
    // Once the primary knows (connections it handed the dying process before are lost with it), the
    // other process answers everything while the primary starts a new one.
    expect(await burst(server.url, 5)).toEqual(Array(5).fill(401))
    await waitFor(() => server.stdout().includes('HTTP process serving again'), {
      timeout: 30_000,
      message: 'the killed process replaced',
    })
    const exited = logLines(server.stdout()).find((l) => l.msg === 'HTTP process exited; starting it again')
    expect(exited).toMatchObject({ signal: 'SIGKILL' })
    const now = childrenOf(server.child.pid!)
    expect(now).toHaveLength(2)
    expect(now).not.toContain(first)
    expect((await client.get('/platforms')).status).toBe(200)
    // Counted by the primary, beside the sum of the processes' metrics.
    expect(await restarts()).toBe(1)
  })

  it('stops every process on SIGTERM, exits 0 and leaves none behind', async () => {
    const children = childrenOf(server.child.pid!)
    const result = await server.stop('SIGTERM')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('mediactl stopped.')
    expect(
      logLines(result.stdout)
        .filter((l) => l.msg === 'stopping')
        .map((l) => l.http_process),
    ).toEqual(expect.arrayContaining([1, 2]))
    for (const pid of children) expect(alive(pid)).toBe(false)
  })
})

describe('mediactl serve --processes 2: failures', () => {
  let dir = ''
  beforeAll(async () => {
    dir = tempDir()
    writeFileSync(join(dir, 'mediactl.yaml'), 'data_dir: ./data\n')
    await cliJson(['init'], { cwd: dir })
  })
  afterAll(() => removeDir(dir))

  it('exits 1 naming the port when it is taken, leaving no process behind', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const result = await cli(['serve', '--host', '127.0.0.1', '--port', String(port), '--processes', '2'], {
        cwd: dir,
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`)
      // Both processes refuse (exit 78): no restart fixes a taken port, so the primary stops.
      expect(result.stderr).toMatch(/HTTP process \d refused to start: its error is above/)
    } finally {
      taken.close()
    }
  })

  it('refuses while migrations are pending, once, in the primary, before any HTTP process boots', async () => {
    expect((await cli(['migrate', 'down'], { cwd: dir })).code).toBe(0)
    const result = await cli(['serve', '--port', '0', '--processes', '2'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr.match(/migration\(s\) pending/g)).toHaveLength(1)
    expect(result.stderr).toContain('mediactl serve --migrate')
  })

  it('rejects a process count out of bounds as a usage error', async () => {
    const result = await cli(['serve', '--processes', '-1'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/processes/)
  })

  it('leaves no HTTP process behind when the primary is killed', async () => {
    const server = await serve(['--processes', '2', '--migrate'], { cwd: dir })
    const children = childrenOf(server.child.pid!)
    expect(children).toHaveLength(2)
    await server.stop('SIGKILL')
    // node:cluster: a worker whose channel to the primary closes exits at once.
    await waitFor(() => children.every((pid) => !alive(pid)), { message: 'the HTTP processes gone' })
  })
})

describe.skipIf(!TEST_PG_URL)('mediactl serve on PostgreSQL', () => {
  let dir = ''
  let drop = async (): Promise<void> => undefined
  beforeAll(async () => {
    dir = tempDir()
    const database = await freshDatabase()
    drop = () => database.drop()
    writeFileSync(join(dir, 'mediactl.yaml'), `data_dir: ./data\ndatabase: { url: '${database.url}' }\n`)
    await cliJson(['init'], { cwd: dir })
  })
  afterAll(async () => {
    await drop()
    removeDir(dir)
  })

  it('runs one HTTP process per CPU core by default (http.processes: 0)', async () => {
    const cores = availableParallelism()
    const server = await serve([], { cwd: dir })
    try {
      if (cores > 1) expect(server.stdout()).toContain(`with ${cores} processes`)
      expect(childrenOf(server.child.pid!)).toHaveLength(cores > 1 ? cores : 0)
    } finally {
      expect((await server.stop('SIGTERM')).code).toBe(0)
    }
  })
})
