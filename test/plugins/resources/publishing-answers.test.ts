import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { publishingDataOn } from './publishing-data.helpers.js'

/**
 * The answers the publishing benchmark measures (resource info, a deep page of a stream),
 * kept byte for byte: a change of the read path (queries, joins, caches) must not change one
 * byte of them. The data is the benchmark's, with every date fixed; the generated slugs and
 * the server's address are put back to names before comparing. The expected answers are in
 * publishing-answers/ beside this file; `MEDIACTL_WRITE_ANSWERS=1` writes them again after an
 * intended change of an answer (review the diff).
 */
const HERE = join(dirname(fileURLToPath(import.meta.url)), 'publishing-answers')
const NOW = new Date('2026-11-20T09:30:00.000Z')
const RESOURCES = 60

describe('publishing answers, byte for byte', () => {
  let app: TestApp
  let data: { media: string; stream: string; resource: string; fileSlug: string; resources: number }
  /** The answer with the generated values named: what may differ between two runs and nothing else. */
  let normalize: (body: string) => string

  beforeAll(async () => {
    app = await startApp()
    const before = Date.now() - 1000
    data = await publishingDataOn(app, RESOURCES, NOW)
    const named: [string, string][] = [
      [app.url, 'http://SERVER'],
      [encodeURIComponent(app.url), encodeURIComponent('http://SERVER')],
      [data.media, 'MEDIA'],
      [data.stream, 'STREAM'],
      [data.resource, 'RESOURCE'],
    ]
    normalize = (body) => {
      let out = body
      for (const [value, name] of named) out = out.split(value).join(name)
      // Dates the API set itself while making the data (the last resource's publication): all others are fixed.
      return out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00/g, (date) =>
        Date.parse(date) >= before ? 'MADE-AT' : date,
      )
    }
  })
  afterAll(() => app?.close())

  const check = (name: string, body: string): void => {
    const path = join(HERE, name)
    if (process.env.MEDIACTL_WRITE_ANSWERS) writeFileSync(path, body)
    expect(body).toBe(readFileSync(path, 'utf8'))
  }

  it('resource info', async () => {
    const res = await app.client.get(`/resource/${data.resource}`)
    expect(res.status).toBe(200)
    check('resource-info.xml', normalize(res.body))
  })

  it('a deep page of the stream (the last 50)', async () => {
    const range = `entities=${RESOURCES - 50}-${RESOURCES - 1}`
    const res = await app.client.get(`/stream/${data.stream}/resources`, { headers: { Range: range } })
    expect(res.status).toBe(200)
    expect(res.headers['content-range']).toBe(`entities ${RESOURCES - 50}-${RESOURCES - 1}/${RESOURCES}`)
    check('deep-page.xml', normalize(res.body))
  })
})
