import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { DigestClient } from '../../helpers/digest-client.js'
import { parseXml, text } from '../../helpers/xml.js'
import { createPlatform } from '../players/players.helpers.js'
import { userWithProfile } from './permissions.fixtures.js'

/** POST /user/<username>/api_key: a new key shown once, for oneself or, with user.edit, for others below oneself. */
describe('POST /user/<username>/api_key', () => {
  let app: TestApp
  const keys: Record<string, string> = {}

  const newKey = (client: DigestClient, username: string) => client.post(`/user/${username}/api_key`)

  beforeAll(async () => {
    app = await startApp()
    await createPlatform(app.client, 'Other')
    const profiles = { viv: 'default-viewer', pia: 'default-administrator', otto: 'other-administrator' }
    for (const [username, profile] of Object.entries(profiles)) {
      keys[username] = (await userWithProfile(app, username, profile)).apiKey
    }
  })
  afterAll(() => app?.close())

  it('gives a user a new key of their own, shown once; the old key stops working at once', async () => {
    const viv = new DigestClient(app.url, 'viv', keys.viv!)
    const res = await newKey(viv, 'viv')
    expect(res.status).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const doc = parseXml(res.body).api_key
    expect(doc['@href']).toBe(`${app.url}/user/viv`)
    expect(text(doc.username)).toBe('viv')
    const key = text(doc.key)
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/)
    expect((await viv.get('/user/viv')).status).toBe(401)
    expect((await new DigestClient(app.url, 'viv', key).get('/user/viv')).status).toBe(200)
    keys.viv = key
  })

  it('makes one for another user with user.edit, never for someone who holds more; 403 without it, 404 elsewhere', async () => {
    const pia = new DigestClient(app.url, 'pia', keys.pia!)
    const otto = new DigestClient(app.url, 'otto', keys.otto!)
    // A platform administrator for a viewer of their platform.
    const made = await newKey(pia, 'viv')
    expect(made.status).toBe(201)
    keys.viv = text(parseXml(made.body).api_key.key)
    // Not for the installation administrator, who holds more.
    expect((await newKey(pia, 'admin')).status).toBe(403)
    // A viewer for anyone else: no user.edit.
    expect((await newKey(new DigestClient(app.url, 'viv', keys.viv!), 'pia')).status).toBe(403)
    // Another platform's users do not exist for them.
    expect((await newKey(otto, 'pia')).status).toBe(404)
    expect((await newKey(otto, 'nobody')).status).toBe(404)
    // The installation administrator for anyone.
    expect((await newKey(app.client, 'otto')).status).toBe(201)
    // Without credentials: 401 with a challenge.
    const anonymous = await fetch(`${app.url}/user/viv/api_key`, { method: 'POST' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Digest /)
  })
})
