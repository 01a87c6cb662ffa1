import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { checkWebhookUrl } from '../../../plugins/webhooks/webhook-address.js'
import { type WebhookRequest, sendWebhook } from '../../../plugins/webhooks/webhook-send.js'
import { type LoopbackNetwork, loopbackNetwork } from './loopback-network.js'

/** What a receiver saw of one request. */
interface Received {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

/** A real HTTP receiver on 127.0.0.1, answering each request with `answer` once its body is read. */
interface Receiver {
  port: number
  received: Received[]
  /** Every request whose head arrived, before its body is read. */
  arrived: number
  /** Connections the client closed or dropped. */
  closed: number
  close(): Promise<void>
}

async function startReceiver(answer: (res: http.ServerResponse, req: http.IncomingMessage) => void): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    receiver.arrived++
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      receiver.received.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      answer(res, req)
    })
  })
  server.on('connection', (socket) => socket.on('close', () => receiver.closed++))
  // A client that went away while the receiver wrote is expected here (capped or timed-out deliveries).
  server.on('clientError', (_error, socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const receiver: Receiver = {
    port: (server.address() as AddressInfo).port,
    received: [],
    arrived: 0,
    closed: 0,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}

/** Waits until `condition` holds (checked on each turn of the event loop), failing after `timeoutMs`. */
async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now()
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

function request(url: string, changes: Partial<WebhookRequest> = {}): WebhookRequest {
  return {
    url,
    headers: { 'content-type': 'application/json' },
    body: '{"event":"media.created"}',
    timeoutMs: 5000,
    maxResponseBytes: 64 * 1024,
    ...changes,
  }
}

const receivers: Receiver[] = []
async function receiver(answer: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer)
  receivers.push(started)
  return started
}

let network: LoopbackNetwork
const allowed = () => ({ network, allowPrivateNetworks: true })

beforeAll(() => {
  network = loopbackNetwork({ 'hooks.test': ['127.0.0.1'] })
})

afterEach(async () => {
  // Not one test may have tried to leave loopback, whatever it expected.
  expect(network.violations).toEqual([])
  await Promise.all(receivers.splice(0).map((started) => started.close()))
})

afterAll(() => {
  expect(network.violations).toEqual([])
})

describe('sendWebhook against loopback receivers', () => {
  it('POSTs the body and headers to the pinned address with the URL host, and reads the answer', async () => {
    const target = await receiver((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks ✓'))
    const body = JSON.stringify({ event: 'media.created', title: 'Café ✓', id: 42 })
    const outcome = await sendWebhook(
      request(`http://hooks.test:${target.port}/in/hook?key=1`, {
        body,
        headers: { 'Content-Type': 'application/json', 'X-Mediactl-Event': 'media.created', Host: 'forged.example' },
      }),
      allowed(),
    )
    expect(outcome).toMatchObject({ status: 200, error: null, body: 'thanks ✓', address: '127.0.0.1' })
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0)
    expect(target.received).toHaveLength(1)
    const [seen] = target.received
    expect(seen).toMatchObject({ method: 'POST', url: '/in/hook?key=1', body })
    expect(seen!.headers).toMatchObject({
      host: `hooks.test:${target.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'mediactl-webhooks/1',
      'x-mediactl-event': 'media.created',
    })
    expect(network.dialled.at(-1)).toBe('127.0.0.1')
  })

  it('reports an error status as an answer', async () => {
    const target = await receiver((res) => res.writeHead(500).end('broken'))
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/`), allowed())
    expect(outcome).toMatchObject({ status: 500, error: null, body: 'broken' })
  })

  it('does not follow a redirect', async () => {
    const target = await receiver((res, req) =>
      req.url === '/first' ? res.writeHead(302, { location: '/second' }).end('moved') : res.writeHead(200).end(),
    )
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/first`), allowed())
    expect(outcome).toMatchObject({ status: 302, error: null, body: 'moved' })
    expect(target.received.map((seen) => seen.url)).toEqual(['/first'])
  })

  it('gives up on a receiver that never answers, at the deadline', async () => {
    const target = await receiver(() => {})
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/`, { timeoutMs: 300 }), allowed())
    expect(outcome).toMatchObject({ status: null, error: 'timed out after 0.3 s', body: '', address: '127.0.0.1' })
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290)
    expect(outcome.durationMs).toBeLessThan(3000)
    expect(target.received).toHaveLength(1)
    // The connection is dropped with the delivery, not left to the receiver.
    await waitFor(() => target.closed === 1)
  })

  it('gives up on an answer whose body never ends, at the deadline', async () => {
    const target = await receiver((res) => {
      res.writeHead(200, { 'content-length': '100' })
      res.write('a start')
    })
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/`, { timeoutMs: 300 }), allowed())
    expect(outcome).toMatchObject({ status: null, error: 'timed out after 0.3 s' })
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290)
  })

  it('gives up on a name that never resolves, at the deadline, without dialling', async () => {
    const stuck = loopbackNetwork()
    stuck.resolve = () => new Promise<string[]>(() => {})
    const outcome = await sendWebhook(request('http://stuck.test/', { timeoutMs: 300 }), {
      network: stuck,
      allowPrivateNetworks: true,
    })
    expect(outcome).toMatchObject({ status: null, error: 'timed out after 0.3 s', address: null })
    expect(stuck.dialled).toEqual([])
  })

  it('reads no more of the answer than allowed, and closes the connection', async () => {
    const target = await receiver((res) => res.writeHead(200).end(Buffer.alloc(1024 * 1024, 'x')))
    const outcome = await sendWebhook(
      request(`http://hooks.test:${target.port}/`, { maxResponseBytes: 1024 }),
      allowed(),
    )
    expect(outcome).toMatchObject({ status: 200, error: null, body: 'x'.repeat(1024) })
  })

  it('drops the connection once enough is read, though the answer goes on', async () => {
    const target = await receiver((res) => res.writeHead(200).write(Buffer.alloc(4096, 'é')))
    const outcome = await sendWebhook(
      request(`http://hooks.test:${target.port}/`, { maxResponseBytes: 1001 }),
      allowed(),
    )
    // 500 whole characters of two bytes each, and the half of one, which decodes as a replacement character.
    expect(outcome).toMatchObject({ status: 200, error: null, body: 'é'.repeat(500) + '\ufffd' })
    // The receiver never ends its answer: only the client can have closed the connection.
    await waitFor(() => target.closed === 1)
  })

  it('reports a connection cut during the answer as an error', async () => {
    const target = await receiver((res, req) => {
      res.writeHead(200, { 'content-length': '1000' })
      res.write('partial', () => req.socket.destroy())
    })
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/`), allowed())
    expect(outcome).toMatchObject({ status: null, body: '' })
    expect(outcome.error).toMatch(/cut during the answer \(after HTTP 200\)/)
  })

  it('reports a connection cut before any answer as an error', async () => {
    const target = await receiver((_res, req) => req.socket.destroy())
    const outcome = await sendWebhook(request(`http://hooks.test:${target.port}/`), allowed())
    expect(outcome).toMatchObject({ status: null, error: 'socket hang up' })
  })

  it('reports a refused connection as an error', async () => {
    // A port that was just freed: nothing listens there any more.
    const closed = await startReceiver(() => {})
    await closed.close()
    const outcome = await sendWebhook(request(`http://hooks.test:${closed.port}/`), allowed())
    expect(outcome.status).toBeNull()
    expect(outcome.error).toMatch(/ECONNREFUSED/)
  })

  it('pins the first address the name resolves to', async () => {
    const target = await receiver((res) => res.writeHead(204).end())
    const pinned = loopbackNetwork({ 'two.test': ['127.0.0.1', '127.0.0.2'] })
    const outcome = await sendWebhook(request(`http://two.test:${target.port}/`), {
      network: pinned,
      allowPrivateNetworks: true,
    })
    expect(outcome).toMatchObject({ status: 204, address: '127.0.0.1' })
    expect(pinned.dialled).toEqual(['127.0.0.1'])
    expect(pinned.violations).toEqual([])
  })

  it('reports headers Node cannot send as an error, without throwing', async () => {
    const target = await receiver((res) => res.writeHead(200).end())
    const outcome = await sendWebhook(
      request(`http://hooks.test:${target.port}/`, { headers: { 'x-bad': 'line\r\nbreak' } }),
      allowed(),
    )
    expect(outcome.status).toBeNull()
    expect(outcome.error).toMatch(/header/i)
    expect(target.arrived).toBe(0)
  })
})

describe('sendWebhook refusals, before any connection', () => {
  it('refuses a private address when private networks are not allowed, and dials nothing', async () => {
    const refusing = loopbackNetwork({ 'evil.example': ['10.0.0.7'] })
    const outcome = await sendWebhook(request('https://evil.example/hook'), {
      network: refusing,
      allowPrivateNetworks: false,
    })
    expect(outcome).toMatchObject({ status: null, address: null, body: '' })
    expect(outcome.error).toBe(
      'the URL resolves to 10.0.0.7, a private address: webhooks go to public addresses only ' +
        '(webhooks.allow_private_networks allows others)',
    )
    expect(refusing.dialled).toEqual([])
    expect(refusing.violations).toEqual([])
  })

  it('refuses a name that resolves to loopback now, though it resolved to a public address when checked', async () => {
    const target = await receiver((res) => res.writeHead(200).end())
    const names: Record<string, string[]> = { 'rebind.example': ['93.184.216.34'] }
    const rebinding = loopbackNetwork(names)
    const url = `http://rebind.example:${target.port}/`
    const options = { network: rebinding, allowPrivateNetworks: false }
    expect(await checkWebhookUrl(url, { ...options, allowHttp: true })).toHaveProperty('addresses', ['93.184.216.34'])
    names['rebind.example'] = ['127.0.0.1']
    const outcome = await sendWebhook(request(url), options)
    expect(outcome.error).toMatch(/^the URL resolves to 127\.0\.0\.1, a loopback address/)
    expect(outcome.address).toBeNull()
    expect(rebinding.dialled).toEqual([])
    expect(target.arrived).toBe(0)
  })

  it('refuses a URL that does not resolve, or is not one, as an outcome', async () => {
    const outcome = await sendWebhook(request('https://unknown.example/'), allowed())
    expect(outcome).toMatchObject({
      status: null,
      error: 'the URL does not resolve: getaddrinfo ENOTFOUND unknown.example',
      address: null,
    })
    expect((await sendWebhook(request('::'), allowed())).error).toBe('the URL is not a valid URL')
  })

  it('reports a connection that cannot be opened as an error, without throwing', async () => {
    const failing = {
      resolve: async () => ['127.0.0.1'],
      dial: (): never => {
        throw new Error('no route to the receiver')
      },
    }
    const outcome = await sendWebhook(request('http://hooks.test/'), { network: failing, allowPrivateNetworks: true })
    expect(outcome).toMatchObject({ status: null, error: 'no route to the receiver', address: '127.0.0.1' })
  })
})
