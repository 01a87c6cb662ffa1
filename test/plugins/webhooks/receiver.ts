import { type IncomingHttpHeaders, type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { waitFor } from '../../helpers/wait.js'

/** One request a receiver got. */
export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** The body parsed (every delivery is JSON). */
  event: { type: string; timestamp: string; data: Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A webhook receiver on 127.0.0.1 (a real socket): records every request, answers the statuses
 * queued for its path in order, then `200`.
 */
export class Receiver {
  readonly received: Received[] = []
  private readonly answers = new Map<string, number[]>()

  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? '/'
      let event: Received['event']
      try {
        event = JSON.parse(body) as Received['event']
      } catch {
        event = { type: '(not JSON)', timestamp: '', data: {} }
      }
      this.received.push({ path, headers: req.headers, body, event })
      const status = this.answers.get(path)?.shift() ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `failing with ${status}`)
    })
  })
  /** `http://127.0.0.1:<port>`, once started. */
  url = ''

  static async start(): Promise<Receiver> {
    const receiver = new Receiver()
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve))
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`
    return receiver
  }

  /** Answers `statuses` to the next requests on `path`, in order (then 200 again). */
  answer(path: string, ...statuses: number[]): void {
    this.answers.set(path, [...(this.answers.get(path) ?? []), ...statuses])
  }

  /** What reached `path`, optionally of one event type. */
  at(path: string, type?: string): Received[] {
    return this.received.filter((r) => r.path === path && (type === undefined || r.event.type === type))
  }

  /** Waits until `path` got `count` requests (of `type`), and answers them. */
  async waitFor(path: string, count: number, type?: string, timeout = 20_000): Promise<Received[]> {
    await waitFor(() => this.at(path, type).length >= count, {
      timeout,
      message: () =>
        `${count} ${type ?? 'event'}(s) at ${path}; got ${this.at(path)
          .map((r) => r.event.type)
          .join(', ')}`,
    })
    return this.at(path, type)
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
