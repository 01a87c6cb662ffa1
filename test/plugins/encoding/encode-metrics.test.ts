import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { scrapeMetrics, valueOf } from '../../helpers/metrics.js'
import { freePort } from '../../helpers/redis-server.js'
import { makeMedia, startEncodingApp, uploadMedia, waitForStatus } from './encoding.helpers.js'

/**
 * The encode speed (`mediactl_encode_seconds_per_output_second`): real encodings of media
 * made with ffmpeg, then a real scrape of the metrics listener.
 */

const SPEED = 'mediactl_encode_seconds_per_output_second'

describe('encode speed metric', () => {
  let app: TestApp
  let metricsUrl: string

  beforeAll(async () => {
    app = await startEncodingApp({ config: { metrics: { port: await freePort(), host: '127.0.0.1' } } })
    metricsUrl = (await app.kernel.serveMetrics())!
  })
  afterAll(async () => app?.close())

  it('is declared before any encoding', async () => {
    expect((await scrapeMetrics(metricsUrl)).types.get(SPEED)).toBe('histogram')
  })

  it('observes one sample per successful encoding, by kind: wall seconds per second of media made', async () => {
    const media = { video: await makeMedia('video', { seconds: 2 }), audio: await makeMedia('audio', { seconds: 2 }) }
    // Before the uploads: no encoding can start earlier.
    const started = performance.now()
    const video = await uploadMedia(app.client, media.video, 'clip.mp4')
    const audio = await uploadMedia(app.client, media.audio, 'tone.m4a')
    expect((await waitForStatus(app.client, video)).at(-1)!.status).toBe('finished')
    expect((await waitForStatus(app.client, audio)).at(-1)!.status).toBe('finished')
    const waited = (performance.now() - started) / 1000
    const scrape = await scrapeMetrics(metricsUrl)
    for (const kind of ['video', 'audio']) {
      expect(valueOf(scrape, `${SPEED}_count`, { kind }), kind).toBe(1)
      const ratio = valueOf(scrape, `${SPEED}_sum`, { kind })!
      // Positive, and no more than the whole wait per the ~2 s of media made.
      expect(ratio, kind).toBeGreaterThan(0)
      expect(ratio, kind).toBeLessThan(waited / 1.5)
    }
    // Each sample also falls in a bucket (cumulative: +Inf holds them all).
    expect(valueOf(scrape, `${SPEED}_bucket`, { kind: 'video', le: '+Inf' })).toBe(1)
  }, 120_000)

  it('an image (no duration) and a file that is no media observe nothing', async () => {
    const image = await uploadMedia(app.client, await makeMedia('png'), 'still.png')
    expect((await waitForStatus(app.client, image)).at(-1)!.status).toBe('finished')
    const text = await uploadMedia(app.client, Buffer.from('no media at all, but named like it'), 'named.mp4')
    await waitForStatus(app.client, text)
    const scrape = await scrapeMetrics(metricsUrl)
    const counts = scrape.samples.filter((s) => s.name === `${SPEED}_count`).map((s) => `${s.labels.kind} ${s.value}`)
    expect(counts.sort()).toEqual(['audio 1', 'video 1'])
  }, 90_000)
})
