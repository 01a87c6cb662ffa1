import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/digest-client.js'
import { parseXml, text } from '../helpers/xml.js'
import motd from './fixtures/motd/index.js'

const root = new URL('../../', import.meta.url)
const FIXTURE = new URL('fixtures/motd/index.ts', import.meta.url)

/** The fixture as it reads from plugins/motd/ (the doc's worked example). */
const asPlugin = (source: string): string => source.replaceAll("'../../../../", "'../../")

describe('the worked example of docs/architecture.md', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ plugins: [motd as never], config: { motd: { text: 'Maintenance at noon' } } })
  })
  afterAll(async () => app?.close())

  it('is the doc verbatim (the fixture, with the paths it has under plugins/)', () => {
    const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8')
    expect(doc).toContain(asPlugin(readFileSync(FIXTURE, 'utf8')).trim())
  })

  it('serves its route with its own configuration, to an authenticated user only', async () => {
    const res = await app.client.get('/motd')
    expect(res.status).toBe(200)
    expect(text(parseXml(res.body).motd)).toBe('Maintenance at noon')
    const anonymous = await rawRequest(`${app.url}/motd`, 'GET')
    expect(anonymous.status).toBe(401)
  })

  it('adds its link to GET / through the root plugin event', async () => {
    const res = await app.client.get('/')
    expect(res.status).toBe(200)
    expect(res.body).toContain(`<motd href="${app.url}/motd"/>`)
  })

  it('refuses a bad configuration section at boot, naming the key', async () => {
    await expect(startApp({ plugins: [motd as never], config: { motd: { text: '' } } })).rejects.toThrow(/motd\.text/)
  })
})
