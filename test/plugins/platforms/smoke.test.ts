import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { parseXml, text } from '../../helpers/xml.js'

describe('smoke', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('serves the root with digest auth', async () => {
    const res = await app.client.get('/')
    expect(res.status).toBe(200)
    const doc = parseXml(res.body)
    expect(doc.services['@href']).toBe(`${app.url}/`)
    const second = await app.client.get('/platforms')
    expect(second.status).toBe(200)
    expect(text(parseXml(second.body).platforms.platform.slug)).toBe('default')
  })
})
