import { writeFileSync } from 'node:fs'
import { type IncomingHttpHeaders, type Server as HttpServer, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { Webhook as Verifier } from 'standardwebhooks'
import { expect } from 'vitest'
import { DigestClient, type Response } from '../helpers/digest-client.js'
import { multipartRequest } from '../helpers/multipart.js'
import { waitFor } from '../helpers/wait.js'
import { parseXml, text } from '../helpers/xml.js'
import { type Server, cliJson, removeDir, serve, tempDir } from './harness.js'

/** A document the type sniffer recognises as a PDF. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n', 'latin1')

/** One request the receiver got, with the status it answered. */
export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  status: number
}

/** A webhook receiver on 127.0.0.1: records every request; answers the statuses queued for its path in order, then 200. */
export class Receiver {
  readonly received: Received[] = []
  private readonly answers = new Map<string, number[]>()

  private constructor(
    private readonly server: HttpServer,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    server.on('request', (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const path = req.url ?? '/'
        const status = receiver.answers.get(path)?.shift() ?? 200
        receiver.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status })
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failing')
      })
    })
    return receiver
  }

  /** Answers `statuses` to the next requests on `path`, in order (then 200 again). */
  answer(path: string, ...statuses: number[]): void {
    this.answers.set(path, [...(this.answers.get(path) ?? []), ...statuses])
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path)
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

/** An event as it reaches a receiver (the part of its payload the tests read). */
export interface DeliveredEvent {
  type: string
  data: { file?: { slug: string; name: string } }
}

/** A delivery as a receiver verifies it: the Standard Webhooks signature with the secret, then the event. */
export function verified(secret: string, r: Received): DeliveredEvent {
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }
  // Throws unless one of the signatures is the secret's, over these very bytes, with a recent timestamp.
  return new Verifier(secret).verify(r.body, headers) as DeliveredEvent
}

export interface MessageRow {
  event_id: string
  type: string
  state: string
  attempts: number
}

export interface JobRow {
  state: string
  attempts: number
}

/**
 * An initialized instance in a temp dir with the webhooks plugin and only what it depends on
 * (no encoder: the tests upload a PDF), SQLite, the inline queue polling fast, deliveries to
 * private addresses allowed (the receiver is on 127.0.0.1) and retried after 1 s, then 1 s.
 */
export class WebhooksInstance {
  server: Server | undefined
  apiKey = ''

  private constructor(readonly dir: string) {}

  static async create(): Promise<WebhooksInstance> {
    const app = new WebhooksInstance(tempDir('mediactl-webhooks-crash-'))
    writeFileSync(
      join(app.dir, 'mediactl.yaml'),
      [
        'data_dir: ./data',
        'http: { processes: 1 }',
        'jobs: { concurrency: 2, backoff: 1, lease: 5, reconcile_interval: 2 }',
        'queue-inline: { poll_interval: 0.2 }',
        'plugins: [root, platforms, identity, storage-fs, metadata, files, queue-inline, encoding, subtitles, media, streams, channels, resources, webhooks]',
        'webhooks: { allow_private_networks: true, retry_delays: [1, 1] }',
        '',
      ].join('\n'),
    )
    try {
      app.apiKey = (
        await cliJson<{ api_key: string }>(['init', '--admin-email', 'admin@example.org'], { cwd: app.dir })
      ).api_key
    } catch (error) {
      removeDir(app.dir)
      throw error
    }
    return app
  }

  /** Starts `mediactl serve` (with extra MEDIACTL_* variables). */
  async serve(env: Record<string, string> = {}): Promise<Server> {
    this.server = await serve([], { cwd: this.dir, env })
    return this.server
  }

  /** A Digest client of the administrator on the running `serve`. */
  client(): DigestClient {
    return new DigestClient(this.server!.url, 'admin', this.apiKey)
  }

  /** Subscribes `url` to `events` on the default platform through the API; answers its id and secret. */
  async createWebhook(url: string, events: string): Promise<{ id: string; secret: string }> {
    const res = await this.client().post('/platform/default/webhooks', { form: { url, events } })
    expect(res.status, res.body).toBe(201)
    const webhook = parseXml(res.body).webhook
    return { id: text(webhook.id), secret: text(webhook.secret) }
  }

  /** `POST /files` of a small PDF named `name` (no encoding job: the instance has no encoder anyway). */
  upload(name: string): Promise<Response> {
    return this.client().post('/files', multipartRequest([{ name: 'path', filename: name, data: PDF }]))
  }

  /** SIGKILLs `serve` if it runs, and waits for it to end. */
  async kill(): Promise<void> {
    const server = this.server
    this.server = undefined
    await server?.stop('SIGKILL')
  }

  /** Reads the database (read-only, while processes may write it). */
  query<T>(sql: string, params: unknown[] = []): T[] {
    const db = new Database(join(this.dir, 'data', 'mediactl.sqlite'), { readonly: true, fileMustExist: true })
    try {
      db.pragma('busy_timeout = 5000')
      return db.prepare(sql).all(...params) as T[]
    } finally {
      db.close()
    }
  }

  /** The events recorded for a webhook (by its public id), oldest first. */
  messages(webhookId: string): MessageRow[] {
    return this.query<MessageRow>(
      `select m.event_id, m.type, m.state, m.attempts from webhook_messages m
         join webhooks w on w.id = m.webhook_id where w.public_id = ? order by m.id`,
      [webhookId],
    )
  }

  /** The delivery job of an event (its subject is the event id). */
  job(eventId: string): JobRow | undefined {
    return this.query<JobRow>(`select state, attempts from jobs where type = 'webhooks.deliver' and subject = ?`, [
      eventId,
    ])[0]
  }

  /** Waits until the event's message is in `state`; the last rows seen and the logs on failure. */
  async waitForMessage(webhookId: string, state: string, timeout = 30_000): Promise<MessageRow> {
    let seen: MessageRow[] = []
    await waitFor(() => (seen = this.messages(webhookId)).some((m) => m.state === state), {
      timeout,
      interval: 50,
      message: () => `an event of webhook ${webhookId} ${state}: ${JSON.stringify(seen)}\n${this.logs()}`,
    })
    return seen.find((m) => m.state === state)!
  }

  /** What `serve` printed, for failure messages. */
  logs(): string {
    return this.server ? `--- serve\n${this.server.stdout().slice(-4000)}\n${this.server.stderr().slice(-2000)}` : ''
  }

  async close(): Promise<void> {
    await this.kill().catch(() => undefined)
    removeDir(this.dir)
  }
}
