import { spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENTS } from '../../plugins/webhooks/webhook-events.js'
import { webhookRoutes } from '../../plugins/webhooks/webhook.routes.js'
import { newSecret, signature, signedHeaders } from '../../plugins/webhooks/webhook-signature.js'
import { webhooksConfigSchema } from '../../plugins/webhooks/webhooks.config.js'
import type { Router } from '../../src/kernel/index.js'
import { codeSpans, repoFile, section, tableRows } from './markdown.js'

/**
 * docs/webhooks.md against the plugin: every route, event type, configuration key (with its
 * default) and metric is documented; the worked example's signature is right; and the two
 * verification examples, run exactly as written (Node with `standardwebhooks`, Python with its
 * standard library), accept a delivery signed by mediactl and refuse forged or stale ones.
 * Nothing here touches the network: the examples read their input from stdin and the environment.
 */

const document = repoFile('docs/webhooks.md')
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])

/** The body of the first fenced block of `language` in `text`. */
function fenced(text: string, language: string): string {
  const match = new RegExp('^```' + language + '\\n([\\s\\S]*?)\\n```$', 'm').exec(text)
  if (!match) throw new Error(`no \`\`\`${language} block`)
  return match[1]!
}

/** Whether a documented path (`/webhook/<id>/test`) names a route pattern (`/webhook/:webhook/test`). */
function names(pattern: string, path: string): boolean {
  const want = pattern.split('/')
  const have = path.split('/')
  return (
    want.length === have.length &&
    want.every((segment, i) => (segment.startsWith(':') ? /^<[a-z_]+>$/.test(have[i]!) : segment === have[i]))
  )
}

/** The routes the plugin registers, recorded by a router that only takes note. */
function pluginRoutes(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = []
  const router = new Proxy(
    {},
    { get: (_, method) => (path: string) => void routes.push({ method: String(method).toUpperCase(), path }) },
  )
  webhookRoutes(router as Router, {} as Parameters<typeof webhookRoutes>[1])
  return routes
}

describe('docs/webhooks.md', () => {
  it('documents every route of the plugin in the Endpoints table, and no other', () => {
    const rows = tableRows(section(document, '## Endpoints'))
      .filter((cells) => METHODS.has(cells[0]!.replace(/`/g, '')))
      .map((cells) => ({ method: cells[0]!.replace(/`/g, ''), path: codeSpans(cells[1]!)[0] ?? '' }))
    const routes = pluginRoutes()
    expect(routes.length).toBeGreaterThanOrEqual(10)
    const missing = routes.filter((r) => !rows.some((row) => row.method === r.method && names(r.path, row.path)))
    expect(missing, 'routes missing from docs/webhooks.md').toEqual([])
    const stale = rows.filter((row) => !routes.some((r) => row.method === r.method && names(r.path, row.path)))
    expect(stale, 'rows of docs/webhooks.md naming no route').toEqual([])
  })

  it('describes every event type, with a payload of the shape sent', () => {
    const events = section(document, '## Events')
    const table = new Set(tableRows(events).map((cells) => codeSpans(cells[0]!)[0]))
    for (const type of Object.keys(WEBHOOK_EVENTS)) {
      expect(table.has(type), `${type} in the events table`).toBe(true)
      const payload = JSON.parse(fenced(section(events, `### \`${type}\``), 'json')) as Record<string, unknown>
      expect(Object.keys(payload), type).toEqual(['type', 'timestamp', 'data'])
      expect(payload.type).toBe(type)
      expect(new Date(payload.timestamp as string).toISOString()).toBe(payload.timestamp)
      const data = payload.data as Record<string, unknown>
      expect(Object.keys(data)[0], `${type}: data starts with platform`).toBe('platform')
      expect(data.platform).toEqual({ slug: expect.any(String), href: expect.stringMatching(/^https:\/\//) })
    }
    expect([...table].filter((type) => !Object.hasOwn(WEBHOOK_EVENTS, type!))).toEqual([])
  })

  it('names every configuration key of the webhooks section, with its default', () => {
    const defaults = webhooksConfigSchema.parse({}) as Record<string, unknown>
    const rows = new Map(
      tableRows(section(document, '## Configuration')).map((cells) => [codeSpans(cells[0]!)[0], cells[1]!]),
    )
    const written = (value: unknown) => (Array.isArray(value) ? `[${value.join(', ')}]` : String(value))
    for (const key of Object.keys(webhooksConfigSchema.shape)) {
      expect(document, `webhooks.${key}`).toContain(`\`webhooks.${key}\``)
      expect(codeSpans(rows.get(`webhooks.${key}`) ?? '')[0], `default of webhooks.${key}`).toBe(written(defaults[key]))
    }
    expect(rows.size).toBe(Object.keys(webhooksConfigSchema.shape).length)
  })

  it('lists every webhook metric', () => {
    const declared = [...repoFile('plugins/webhooks/webhook.metrics.ts').matchAll(/'(mediactl_[a-z_]+)'/g)].map(
      (m) => m[1]!,
    )
    expect(declared.length).toBeGreaterThanOrEqual(5)
    const listed = tableRows(section(document, '## Metrics')).map((cells) => codeSpans(cells[0]!)[0])
    expect(listed.sort()).toEqual(declared.sort())
  })

  it('shows a request whose signature is the one mediactl computes for its secret', () => {
    const request = fenced(section(document, '### The request'), 'http')
    const [head, body] = request.split('\n\n') as [string, string]
    const headers = Object.fromEntries(
      head
        .split('\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
    )
    const secret = /`(whsec_[A-Za-z0-9+/=]+)`/.exec(section(document, '## Signatures'))![1]!
    expect(headers).toEqual({
      host: 'hooks.example.org',
      'user-agent': 'mediactl-webhooks/1',
      'content-length': String(Buffer.byteLength(body)),
      ...signedHeaders([secret], headers['webhook-id']!, Number(headers['webhook-timestamp']), body),
    })
    expect(headers['webhook-signature']).toBe(
      signature(secret, headers['webhook-id']!, Number(headers['webhook-timestamp']), body),
    )
    // The body is the webhook.test payload shown with the events, compact.
    expect(JSON.parse(body)).toEqual(JSON.parse(fenced(section(document, '### `webhook.test`'), 'json')))
  })
})

describe('the verification examples of docs/webhooks.md', () => {
  const verifying = section(document, '## Verifying deliveries')
  let dir: string
  let node: string
  let python: string

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'mediactl-webhooks-doc-')))
    // The Node example imports `standardwebhooks`: resolved through the repository's node_modules.
    symlinkSync(new URL('../../node_modules', import.meta.url).pathname, join(dir, 'node_modules'), 'dir')
    node = join(dir, 'verify-webhook.mjs')
    python = join(dir, 'verify_webhook.py')
    writeFileSync(node, fenced(verifying, 'js'))
    writeFileSync(python, fenced(verifying, 'python'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /** Runs an example as the doc says: the body on stdin, the secret and the headers in the environment. */
  function run(
    command: string,
    script: string,
    delivery: { secret: string; headers: Record<string, string>; body: string },
  ): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, [script], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          WEBHOOK_SECRET: delivery.secret,
          WEBHOOK_ID: delivery.headers['webhook-id'],
          WEBHOOK_TIMESTAMP: delivery.headers['webhook-timestamp'],
          WEBHOOK_SIGNATURE: delivery.headers['webhook-signature'],
        },
        timeout: 10_000,
      })
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, out: out.trim() }))
      child.stdin.end(delivery.body)
    })
  }

  it('are the two documented: Node with standardwebhooks, Python with its standard library', () => {
    expect(fenced(verifying, 'js')).toContain("import { Webhook } from 'standardwebhooks'")
    expect(fenced(verifying, 'js')).toContain('new Webhook(secret).verify(rawBody, headers)')
    const imports = [...fenced(verifying, 'python').matchAll(/^(?:import|from) (\w+)/gm)].map((m) => m[1])
    expect(imports.sort()).toEqual(['base64', 'hashlib', 'hmac', 'json', 'os', 'sys', 'time'])
    expect(fenced(verifying, 'python')).toContain('hmac.compare_digest')
  })

  it('accept a genuine delivery and refuse a changed body, another secret and a stale timestamp', async () => {
    const secret = newSecret()
    const previous = newSecret()
    const now = Math.floor(Date.now() / 1000)
    const id = 'msg_Wp9tCGKYdykCE26Fjk4slw'
    const body = JSON.stringify({
      type: 'file.encoded',
      timestamp: new Date().toISOString(),
      data: {
        platform: { slug: 'campus-tv', href: 'https://media.example.org/platform/campus-tv' },
        file: {
          slug: 'ete',
          name: 'Été à Montréal.mp4',
          type: 'video',
          size: 1200,
          href: 'https://media.example.org/file/ete',
        },
      },
    })
    const signed = (secrets: string[], timestamp = now, text = body) => ({
      secret,
      headers: signedHeaders(secrets, id, timestamp, text),
      body: text,
    })
    const cases: [string, { secret: string; headers: Record<string, string>; body: string }, boolean][] = [
      ['genuine', signed([secret]), true],
      // During a rotation's overlap: two signatures, space-separated; the receiver holds either secret.
      [
        'signed with the new and the previous secret, checked with the previous one',
        { ...signed([secret, previous]), secret: previous },
        true,
      ],
      ['a changed body', { ...signed([secret]), body: body.replace('"size":1200', '"size":1201') }, false],
      ['another secret', { ...signed([secret]), secret: newSecret() }, false],
      ['a timestamp 10 minutes old', signed([secret], now - 600), false],
      ['a timestamp 10 minutes ahead', signed([secret], now + 600), false],
    ]
    const results = await Promise.all(
      cases.flatMap(([name, delivery, genuine]) =>
        [
          ['node', process.execPath, node],
          ['python', 'python3', python],
        ].map(async ([language, command, script]) => ({
          name: `${language}: ${name}`,
          genuine,
          ...(await run(command!, script!, delivery)),
        })),
      ),
    )
    for (const result of results) {
      if (result.genuine) {
        expect({ name: result.name, code: result.code, out: result.out }).toEqual({
          name: result.name,
          code: 0,
          out: `genuine: file.encoded ${id}`,
        })
      } else {
        expect({ name: result.name, code: result.code }).toEqual({ name: result.name, code: 1 })
        expect(result.out, result.name).toMatch(/^rejected: /)
      }
    }
  })
})
