import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { type Scrape, scrapeMetrics, valueOf } from '../../helpers/metrics.js'
import { multipart } from '../../helpers/multipart.js'
import { freePort } from '../../helpers/redis-server.js'
import { type XmlObject, list } from '../../helpers/xml.js'
import { userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'
import { MP4, STORE_ONLY, upload } from './files.helpers.js'

/**
 * The upload metrics, through real uploads of every method and real scrapes of the metrics
 * listener: bytes of files accepted and the time from the upload's start to its file.
 */

const BYTES = 'mediactl_upload_bytes_total'
const SECONDS = 'mediactl_upload_duration_seconds'

const filled = (size: number): Buffer => Buffer.concat([MP4, randomBytes(size - MP4.length)])

describe('upload metrics', () => {
  let app: TestApp
  let alice: DigestClient
  let metricsUrl: string

  beforeAll(async () => {
    app = await startApp({ config: { ...STORE_ONLY, metrics: { port: await freePort(), host: '127.0.0.1' } } })
    metricsUrl = (await app.kernel.serveMetrics())!
    alice = await userWithFlags(app, 'alice', ['file.create'])
  })
  afterAll(async () => app?.close())

  /** The bytes counted for a method, and its durations' count and sum (0 when none yet). */
  const counted = (scrape: Scrape, method: string) => ({
    bytes: valueOf(scrape, BYTES, { method }) ?? 0,
    count: valueOf(scrape, `${SECONDS}_count`, { method }) ?? 0,
    sum: valueOf(scrape, `${SECONDS}_sum`, { method }) ?? 0,
  })

  /** What one upload adds to a method's counts, and how long it took as the client saw it. */
  async function measured(method: string, send: () => Promise<void>) {
    const before = counted(await scrapeMetrics(metricsUrl), method)
    const started = performance.now()
    await send()
    const seconds = (performance.now() - started) / 1000
    const after = counted(await scrapeMetrics(metricsUrl), method)
    return {
      bytes: after.bytes - before.bytes,
      count: after.count - before.count,
      sum: after.sum - before.sum,
      seconds,
    }
  }

  it('declares both metrics before any upload, with no sample', async () => {
    const scrape = await scrapeMetrics(metricsUrl)
    expect(scrape.types.get(BYTES)).toBe('counter')
    expect(scrape.types.get(SECONDS)).toBe('histogram')
  })

  it('multipart: counts the file size once and the request time', async () => {
    const data = filled(150_000)
    const added = await measured('multipart', async () => {
      expect((await upload(alice, data, { filename: 'one.mp4' })).status).toBe(200)
    })
    expect(added.bytes).toBe(data.length)
    expect(added.count).toBe(1)
    expect(added.sum).toBeGreaterThan(0)
    expect(added.sum).toBeLessThanOrEqual(added.seconds)
  })

  it('chunked: counts the whole file once, when the last piece makes it, from the first piece', async () => {
    const data = filled(90_000)
    const pieces = [data.subarray(0, 40_000), data.subarray(40_000, 80_000), data.subarray(80_000)]
    /** When each piece's answer came. */
    const answered: number[] = []
    const added = await measured('chunked', async () => {
      for (const [chunk, piece] of pieces.entries()) {
        const res = await upload(alice, piece, {
          filename: 'blob',
          fields: { name: 'pieces.mp4', chunk: String(chunk), chunks: String(pieces.length) },
        })
        expect(res.status, res.body).toBe(200)
        // Pieces on the way count nothing: only a file is an accepted upload.
        if (chunk < pieces.length - 1) {
          expect(counted(await scrapeMetrics(metricsUrl), 'chunked').count).toBe(0)
        }
        answered.push(performance.now())
      }
    })
    expect(added.bytes).toBe(data.length)
    expect(added.count).toBe(1)
    // From the first piece to the file: it started before piece 0 was answered and ended
    // after the last but one was, so it spans at least the time between those answers.
    expect(added.sum).toBeGreaterThanOrEqual((answered[1]! - answered[0]!) / 1000)
    expect(added.sum).toBeLessThanOrEqual(added.seconds)
  })

  it("an upload link's json endpoint counts as multipart; a refused upload counts nothing", async () => {
    const links = list<XmlObject>(xmlOf(await alice.post('/files/upload_links'), 200).links.link)
    const json = String(links.find((link) => link['@rel'] === 'json')!['@href'])
    const data = filled(20_000)
    const added = await measured('multipart', async () => {
      const { body, contentType } = multipart([{ name: 'file[path]', filename: 'link.mp4', data }])
      const res = await rawRequest(json, 'POST', { body, headers: { 'content-type': contentType } })
      expect(res.status, res.body).toBe(200)
    })
    expect(added.bytes).toBe(data.length)
    expect(added.count).toBe(1)

    const refused = await measured('multipart', async () => {
      expect((await upload(alice, Buffer.alloc(0), { filename: 'empty.bin' })).status).toBe(412)
    })
    expect(refused).toMatchObject({ bytes: 0, count: 0, sum: 0 })
  })

  it('tus: counts the file once, from the creation to the last PATCH', async () => {
    const links = list<XmlObject>(xmlOf(await alice.post('/files/upload_links'), 200).links.link)
    const json = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href']))
    const data = filled(60_000)
    const tus = { 'Tus-Resumable': '1.0.0' }
    let createdAt = 0
    let lastSentAt = 0
    const added = await measured('tus', async () => {
      const created = await rawRequest(`${json.origin}/upload/tus${json.search}`, 'POST', {
        headers: {
          ...tus,
          'Upload-Length': String(data.length),
          'Upload-Metadata': `filename ${Buffer.from('resumed.mp4').toString('base64')}`,
        },
      })
      expect(created.status, created.body).toBe(201)
      createdAt = performance.now()
      const url = String(created.headers.location)
      const patch = (offset: number, bytes: Buffer) =>
        rawRequest(url, 'PATCH', {
          headers: { ...tus, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
          body: bytes,
        })
      expect((await patch(0, data.subarray(0, 25_000))).status).toBe(204)
      expect(counted(await scrapeMetrics(metricsUrl), 'tus').count).toBe(0)
      lastSentAt = performance.now()
      const last = await patch(25_000, data.subarray(25_000))
      expect(last.status, last.body).toBe(200)
    })
    expect(added.bytes).toBe(data.length)
    expect(added.count).toBe(1)
    // Created before the creation was answered, made a file after the last PATCH was sent.
    expect(added.sum).toBeGreaterThanOrEqual((lastSentAt - createdAt) / 1000)
    expect(added.sum).toBeLessThanOrEqual(added.seconds)
  })

  it('label values stay bounded: the methods only, never a name or a user', async () => {
    const scrape = await scrapeMetrics(metricsUrl)
    const methods = new Set(
      scrape.samples.filter((s) => s.name.startsWith('mediactl_upload_')).map((s) => s.labels.method),
    )
    expect([...methods].sort()).toEqual(['chunked', 'multipart', 'tus'])
    expect(scrape.text).not.toContain('alice')
    expect(scrape.text).not.toContain('resumed.mp4')
  })
})
