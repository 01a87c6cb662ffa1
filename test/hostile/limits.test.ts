import { type Socket, connect } from 'node:net'
import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawExchange } from '../e2e/harness.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/digest-client.js'
import { multipartRequest } from '../helpers/multipart.js'
import { waitFor } from '../helpers/wait.js'
import { parseXml, text } from '../helpers/xml.js'

/** Opens a socket to the app and resolves once connected; `closed` tells when the server hung up. */
function openSocket(url: string): Promise<{ socket: Socket; closed: () => boolean; received: () => string }> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname)
    let closed = false
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    socket.on('close', () => (closed = true))
    socket.on('error', () => undefined)
    socket.once('connect', () => resolve({ socket, closed: () => closed, received: () => received }))
    socket.once('error', reject)
  })
}

/** The status and contract error body of a raw answer. */
function errorOf(raw: { status: number; body: string }): { status: number; message: string } {
  const error = parseXml(raw.body).error
  return { status: Number(text(error.status)), message: text(error.message) }
}

describe('server limits (defaults)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('answers 431 with the contract error body for a request head over 16 KiB', async () => {
    const res = await rawRequest(app.url + '/', 'GET', { headers: { 'x-padding': 'x'.repeat(17 * 1024) } })
    expect(res.status).toBe(431)
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expect(errorOf(res)).toEqual({ status: 431, message: expect.stringMatching(/headers are too large/) })
    // The same head under the limit reaches the pipeline (and its Digest challenge).
    const fine = await rawRequest(app.url + '/', 'GET', { headers: { 'x-padding': 'x'.repeat(8 * 1024) } })
    expect(fine.status).toBe(401)
  })

  it('answers 400 with the contract error body for a request node:http cannot parse', async () => {
    const exchange = await rawExchange(app.url, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n')
    const res = await exchange.response
    expect(res.status).toBe(400)
    expect(errorOf(res).status).toBe(400)
  })

  it('answers 413 to an oversized form body from its Content-Length, before reading it', async () => {
    await app.client.handshake()
    const head =
      `POST /platforms HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${50 * 1024 * 1024}\r\nAuthorization: ${app.client.authorization('POST', '/platforms')}\r\n\r\n`
    const exchange = await rawExchange(app.url, head)
    // Not a byte of the 50 MB is sent: the answer cannot have waited for it.
    const res = await exchange.response
    expect(res.status).toBe(413)
    expect(errorOf(res).message).toMatch(/larger than 1048576 bytes/)
  })

  it('answers 404 for a path parameter holding a NUL or another control character, on every database', async () => {
    for (const [method, path] of [
      ['GET', '/platform/%00'],
      ['GET', '/user/%00'],
      ['DELETE', '/platform/%00'],
      ['GET', '/platform/default%00'],
      ['GET', '/file/%01abc'],
      ['PUT', '/group/a%7F'],
    ] as const) {
      const res = await app.client.request(method, path)
      expect(res.status, `${method} ${path}`).toBe(404)
    }
  })

  it('answers 412 naming the field for a form value or name holding a NUL', async () => {
    const res = await app.client.post('/platforms', { body: 'name=A%00B&max_users=0', headers: FORM })
    expect(res.status).toBe(412)
    expect(res.body).toContain('<field name="name">')
    const named = await app.client.post('/platforms', { body: 'na%00me=A', headers: FORM })
    expect(named.status).toBe(412)
    expect(named.body).toContain('<field name="name">')
    const multipart = multipartRequest([{ name: 'name', value: 'A\u0000B' }])
    const inMultipart = await app.client.post('/platforms', multipart)
    expect(inMultipart.status).toBe(412)
    expect(inMultipart.body).toContain('<field name="name">')
    const query = await app.client.get('/search/directories?name=a%00')
    expect(query.status).toBe(412)
    expect(query.body).toContain('<field name="name">')
    // Nothing was created on the way.
    expect((await app.client.get('/platforms')).body).not.toContain('<name><![CDATA[A')
  })

  it('answers 416 for a malformed Range and 400 for malformed percent-encoding', async () => {
    expect((await app.client.get('/platforms', { headers: { range: 'entities=abc' } })).status).toBe(416)
    expect((await app.client.get('/platforms', { headers: { range: 'bytes=0-10' } })).status).toBe(416)
    expect((await app.client.get('/platform/%E0%A4%A')).status).toBe(400)
  })

  it('keeps answering others while 300 slowloris sockets trickle their headers', async () => {
    const sockets = await Promise.all(Array.from({ length: 300 }, () => openSocket(app.url)))
    for (const { socket } of sockets) socket.write('GET / HTTP/1.1\r\nHost: x\r\n')
    let slowest = 0
    let answered = 0
    // Each round: every socket sends one more header byte; a real client is served in between.
    for (let round = 0; round < 10; round++) {
      for (const { socket } of sockets) socket.write('X')
      const started = performance.now()
      const res = await app.client.get('/platforms')
      slowest = Math.max(slowest, performance.now() - started)
      if (res.status === 200) answered++
    }
    console.log(`slowest request under 300 slowloris sockets: ${slowest.toFixed(1)} ms`)
    expect(answered).toBe(10)
    expect(sockets.filter((s) => s.closed())).toHaveLength(0)
    for (const { socket } of sockets) socket.destroy()
  })
})

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('a connection that never sends a byte, past http.headers_timeout (idle_timeout far off)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({ config: { http: { headers_timeout: 1, idle_timeout: 120 } } })
  })
  afterAll(async () => app?.close())

  it('is closed without an answer: it made no request (a browser preconnection, a probe)', async () => {
    const silent = await openSocket(app.url)
    await waitFor(silent.closed, { timeout: 10_000, message: 'the server to close the silent socket' })
    expect(silent.received()).toBe('')
    // One byte makes it a request that came too slowly: 408.
    const started = await openSocket(app.url)
    started.socket.write('G')
    await waitFor(started.closed, { timeout: 10_000, message: 'the server to close the slow socket' })
    expect(started.received()).toMatch(/^HTTP\/1\.1 408 /)
  })
})

describe('server limits (tight settings)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({
      config: {
        http: { max_header_size: 4096, headers_timeout: 1, idle_timeout: 1, body_limit: 1024, max_fields: 5 },
      },
    })
  })
  afterAll(async () => app?.close())

  it('applies http.max_header_size', async () => {
    const big = await rawRequest(app.url + '/', 'GET', { headers: { 'x-padding': 'x'.repeat(5000) } })
    expect(big.status).toBe(431)
    const fine = await rawRequest(app.url + '/', 'GET', { headers: { 'x-padding': 'x'.repeat(2000) } })
    expect(fine.status).toBe(401)
  })

  it('answers 408 and closes a socket whose head does not arrive within http.headers_timeout', async () => {
    const slow = await openSocket(app.url)
    slow.socket.write('GET / HTTP/1.1\r\nHost: x\r\n')
    // One more header byte every 100 ms: the socket is never idle, only too slow.
    const trickle = setInterval(() => slow.socket.write('X'), 100)
    try {
      await waitFor(slow.closed, { timeout: 10_000, message: 'the server to close the slow socket' })
    } finally {
      clearInterval(trickle)
    }
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('closes a silent connection after http.idle_timeout', async () => {
    const silent = await openSocket(app.url)
    await waitFor(silent.closed, { timeout: 10_000, message: 'the server to close the silent socket' })
    expect(silent.received()).toBe('')
  })

  it('answers 413 for more multipart fields, parts or field bytes than allowed', async () => {
    const fields = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, value: 'x' }))
    expect((await app.client.post('/platforms', multipartRequest(fields))).status).toBe(413)
    const files = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, filename: 'a.bin', data: Buffer.from('x') }))
    expect((await app.client.post('/platforms', multipartRequest(files))).status).toBe(413)
    const huge = multipartRequest([{ name: 'name', value: 'x'.repeat(2000) }])
    expect((await app.client.post('/platforms', huge)).status).toBe(413)
    // Still serving.
    expect((await app.client.get('/')).status).toBe(200)
  })
})
