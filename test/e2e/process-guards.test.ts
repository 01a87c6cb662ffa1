import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DigestClient } from '../helpers/digest-client.js'
import { type Part, multipart } from '../helpers/multipart.js'
import { ROOT, type Server, cliJson, rawExchange, removeDir, serve, tempDir } from './harness.js'

/** Runs a script in a fresh node process (ES module), with the compiled dist/ at hand. */
function runScript(source: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const dist = (path: string): string => pathToFileURL(join(ROOT, 'dist', 'src', path)).href

describe('the last-resort guard of serve and worker', () => {
  it.each([
    ['uncaughtException', `setTimeout(() => { throw new Error('escaped from a callback') }, 0)`],
    ['unhandledRejection', `Promise.reject(new Error('escaped from a callback'))`],
  ])('logs an escaped %s with its stack and exits 1, never hangs', async (kind, escape) => {
    const result = await runScript(`
      import { guardProcess } from ${JSON.stringify(dist('app/process-guards.js'))}
      import { createLogger } from ${JSON.stringify(dist('kernel/index.js'))}
      guardProcess(createLogger('info'))
      // Something that would keep an unguarded process alive forever.
      setInterval(() => undefined, 1000)
      ${escape}
    `)
    expect(result.code).toBe(1)
    const line = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
      level: number
      kind: string
      err: { stack: string }
    }
    expect(line.level).toBe(60)
    expect(line.kind).toBe(kind)
    expect(line.err.stack).toContain('escaped from a callback')
    expect(line.err.stack).toMatch(/\n\s+at /)
  })
})

/** A multipart body cut before its closing boundary, sent whole with an honest Content-Length. */
function truncated(parts: Part[]): { body: Buffer; contentType: string } {
  const { body, contentType } = multipart(parts)
  const end = body.lastIndexOf('\r\n--')
  return { body: body.subarray(0, end - 3), contentType }
}

describe('a real mediactl serve under truncated form bodies', () => {
  let dir: string
  let server: Server
  let client: DigestClient

  beforeAll(async () => {
    dir = tempDir()
    const init = await cliJson(['init', '--admin-email', 'admin@example.org'], { cwd: dir })
    server = await serve([], { cwd: dir })
    client = new DigestClient(server.url, 'admin', init.api_key as string)
  })
  afterAll(async () => {
    await server?.stop()
    removeDir(dir)
  })

  it('answers 400 to each and keeps serving: the process never dies of client input', async () => {
    await client.handshake()
    const bodies = [
      truncated([{ name: 'name', value: 'Cut' }]),
      truncated([
        { name: 'name', value: 'Cut' },
        { name: 'logo', filename: 'x.png', data: Buffer.alloc(4096, 1) },
      ]),
      truncated([{ name: 'username', value: 'cut' }]),
    ]
    for (const path of ['/platforms', '/platform/default/users', '/platform/default/groups']) {
      for (const { body, contentType } of bodies) {
        const exchange = await rawExchange(
          server.url,
          [
            `POST ${path} HTTP/1.1`,
            'Host: 127.0.0.1',
            `Authorization: ${client.authorization('POST', path)}`,
            `Content-Type: ${contentType}`,
            `Content-Length: ${body.length}`,
            '',
            '',
          ].join('\r\n'),
        )
        exchange.write(body.toString('latin1'))
        const res = await exchange.response
        expect(res.status, `${path}: ${res.body}`).toBe(400)
        expect(res.body).toContain('Malformed form body')
      }
    }
    expect((await client.get('/')).status).toBe(200)
    expect(server.child.exitCode).toBeNull()
    expect(server.stdout()).not.toMatch(/"level":60/)
  })
})
