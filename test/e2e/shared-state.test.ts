import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_PG_URL, freshDatabase } from '../helpers/database.js'
import { DigestClient, openRequest, rawRequest } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { list, type XmlObject } from '../helpers/xml.js'
import { xmlOf } from '../helpers/answers.js'
import { MP4 } from '../plugins/files/files.helpers.js'
import { type Server, cli, cliJson, removeDir, serve, tempDir } from './harness.js'

/**
 * What several HTTP processes share with no Redis (`state: database`, the default): a captured
 * Digest header replayed against any process is refused, and an upload's lock taken in one
 * process holds in the other. A real `serve --processes 2` on SQLite, and on PostgreSQL.
 */

/** The parsed JSON log lines of the server's stdout. */
const logLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/** The access-log line of the request sent with `X-Request-Id: id`, once it is written. */
async function logged(server: Server, id: string): Promise<Record<string, unknown>> {
  let line: Record<string, unknown> | undefined
  await waitFor(
    () => (line = logLines(server.stdout()).find((l) => l.msg === 'request' && l.id === id)) !== undefined,
    {
      message: `the log line of request ${id}`,
    },
  )
  return line!
}

/** A kept-alive connection that reached HTTP process `n` (the primary hands connections round-robin). */
async function connectionTo(server: Server, n: number): Promise<Agent> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const id = `pin-${randomBytes(6).toString('hex')}`
    expect((await rawRequest(`${server.url}/health`, 'GET', { agent, headers: { 'x-request-id': id } })).status).toBe(
      200,
    )
    if ((await logged(server, id)).http_process === n) return agent
    agent.destroy()
  }
  throw new Error(`no connection reached HTTP process ${n} in 20 tries`)
}

const databases = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: !TEST_PG_URL },
] as const

describe.each(databases)('serve --processes 2 without Redis ($name)', ({ name, skip }) => {
  let dir = ''
  let server: Server
  let apiKey = ''
  let drop = async (): Promise<void> => undefined

  beforeAll(async () => {
    if (skip) return
    dir = tempDir()
    let database = ''
    if (name === 'PostgreSQL') {
      const fresh = await freshDatabase()
      drop = () => fresh.drop()
      database = `database: { url: '${fresh.url}' }\n`
    }
    writeFileSync(join(dir, 'mediactl.yaml'), `data_dir: ./data\n${database}`)
    apiKey = (await cliJson<{ api_key: string }>(['init'], { cwd: dir })).api_key
    server = await serve(['--processes', '2'], { cwd: dir })
  }, 120_000)
  afterAll(async () => {
    await server?.stop('SIGTERM')
    await drop()
    if (dir) removeDir(dir)
  })

  it.skipIf(skip)(
    'refuses 200 replays of captured headers, spread over fresh connections to both processes',
    async () => {
      const client = new DigestClient(server.url, 'admin', apiKey)
      await client.handshake()
      const replays: string[] = []
      for (let header = 0; header < 20; header++) {
        // Captured as it went by: the request itself is answered.
        const authorization = client.authorization('GET', '/')
        const first = await rawRequest(`${server.url}/`, 'GET', { headers: { authorization, connection: 'close' } })
        expect(first.status).toBe(200)
        for (let replay = 0; replay < 10; replay++) {
          const id = `replay-${header}-${replay}`
          replays.push(id)
          const again = await rawRequest(`${server.url}/`, 'GET', {
            headers: { authorization, connection: 'close', 'x-request-id': id },
          })
          expect(again.status, `replay ${replay} of header ${header}`).toBe(401)
          expect(again.body).toContain('Replayed request')
        }
      }
      const lines = await Promise.all(replays.map((id) => logged(server, id)))
      expect(lines.every((l) => l.status === 401)).toBe(true)
      expect(new Set(lines.map((l) => l.http_process))).toEqual(new Set([1, 2]))
      // Counting on with the same nonce still works, in either process.
      const next = await rawRequest(`${server.url}/`, 'GET', {
        headers: { authorization: client.authorization('GET', '/'), connection: 'close' },
      })
      expect(next.status).toBe(200)
    },
  )

  it.skipIf(skip)(
    'serializes two PATCHes of one tus upload sent to two processes; the bytes come out exact',
    async () => {
      const client = new DigestClient(server.url, 'admin', apiKey)
      const links = list<XmlObject>(xmlOf(await client.post('/files/upload_links'), 200).links.link)
      const token = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href'])).searchParams.get('token')!
      const size = 4 * 1024 * 1024
      const data = Buffer.concat([MP4, randomBytes(size - MP4.length)])
      const tus = (extra: Record<string, string>): Record<string, string> => ({
        'Tus-Resumable': '1.0.0',
        'Upload-Token': token,
        ...extra,
      })
      const created = await rawRequest(`${server.url}/upload/tus`, 'POST', {
        headers: tus({ 'Upload-Length': String(size), 'Upload-Metadata': `filename ${btoa('two.mp4')}` }),
      })
      expect(created.status, created.body).toBe(201)
      const url = String(created.headers.location)
      const id = new URL(url).pathname.split('/').pop()!
      const partial = join(dir, 'data', 'storage', '~tus', id)

      const [one, two] = [await connectionTo(server, 1), await connectionTo(server, 2)]
      try {
        // The first PATCH sends half its bytes and stalls, holding the upload's lock in process 1.
        const first = openRequest(url, 'PATCH', {
          agent: one,
          headers: tus({
            'Upload-Offset': '0',
            'Content-Type': 'application/offset+octet-stream',
            'Content-Length': String(size),
            'x-request-id': 'patch-stalled',
          }),
        })
        let firstEnded = false
        const firstOutcome = first.answer.then(
          (res) => ((firstEnded = true), res.status),
          () => ((firstEnded = true), 'cut'),
        )
        first.req.write(data.subarray(0, size / 2))
        await waitFor(() => (statSync(partial, { throwIfNoEntry: false })?.size ?? 0) > 0, {
          message: 'bytes of the first half written by process 1',
        })
        // The client gives up on it and sends the whole upload again through process 2: that request
        // waits for the lock and asks process 1 to let it go, which ends the stalled PATCH there.
        const retry = await rawRequest(url, 'PATCH', {
          agent: two,
          headers: tus({
            'Upload-Offset': '0',
            'Content-Type': 'application/offset+octet-stream',
            'x-request-id': 'patch-retry',
          }),
          body: data,
        })
        await waitFor(() => firstEnded, { message: 'the stalled PATCH ended by the release request' })
        expect((await logged(server, 'patch-retry')).http_process).toBe(2)
        // The retry was answered once the stalled one had saved its bytes: its offset no longer matches.
        expect(retry.status, retry.body).toBe(409)
        expect(await firstOutcome).not.toBe(200)

        // The client resumes where the server says, and the file comes out exact.
        const offset = Number((await rawRequest(url, 'HEAD', { headers: tus({}) })).headers['upload-offset'])
        expect(offset).toBeGreaterThan(0)
        expect(offset).toBeLessThanOrEqual(size / 2)
        const rest = await rawRequest(url, 'PATCH', {
          headers: tus({ 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }),
          body: data.subarray(offset),
        })
        // The last PATCH answers the file it became.
        expect(rest.status, rest.body).toBe(200)
        expect(JSON.parse(rest.body)).toMatchObject({ result: { name: 'two.mp4', size } })
        const files = join(dir, 'data', 'storage', 'files')
        const sources = readdirSync(files).map((key) => join(files, key, 'source'))
        const stored = sources.find((path) => statSync(path, { throwIfNoEntry: false })?.size === size)
        expect(stored && readFileSync(stored).equals(data)).toBe(true)
      } finally {
        one.destroy()
        two.destroy()
      }
    },
  )
})

describe('serve --processes 2 with state: memory', () => {
  let dir = ''
  beforeAll(async () => {
    dir = tempDir()
    writeFileSync(join(dir, 'mediactl.yaml'), 'data_dir: ./data\nstate: memory\n')
    await cliJson(['init'], { cwd: dir })
  })
  afterAll(() => removeDir(dir))

  it('refuses to start, naming the setting, before starting any HTTP process', async () => {
    const result = await cli(['serve', '--port', '0', '--processes', '2'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('state: memory keeps Digest nonce counts and upload locks in each process')
    expect(result.stderr).toContain('http.processes: 1')
    expect(result.stdout).not.toContain('serving on')
  })
})
