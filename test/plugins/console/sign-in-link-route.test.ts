import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { parseXml, text } from '../../helpers/xml.js'
import { userWithProfile } from '../identity/permissions.fixtures.js'
import { createPlatform } from '../players/players.helpers.js'
import { cookieOf, send } from './console.helpers.js'

/** POST /user/<username>/sign_in_link (decision 0261): a one-time link, for those who may edit the user. */
describe('POST /user/<username>/sign_in_link', () => {
  let app: TestApp
  const clients: Record<string, DigestClient> = {}

  const linkOf = (client: DigestClient, username: string) => client.post(`/user/${username}/sign_in_link`)

  beforeAll(async () => {
    app = await startApp()
    await createPlatform(app.client, 'Other')
    const profiles = {
      viv: 'default-viewer',
      pia: 'default-administrator',
      ina: 'default-viewer',
      otto: 'other-administrator',
    }
    for (const [username, profile] of Object.entries(profiles)) {
      clients[username] = await userWithProfile(app, username, profile)
    }
  })
  afterAll(() => app?.close())

  it('answers a link once, valid a day, where the user chooses a password and is signed in', async () => {
    const before = Date.now()
    const res = await linkOf(clients.pia!, 'viv')
    expect(res.status).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const doc = parseXml(res.body).sign_in_link
    expect(doc['@href']).toBe(`${app.url}/user/viv`)
    expect(text(doc.username)).toBe('viv')
    const url = text(doc.url)
    expect(url).toMatch(new RegExp(`^${app.url}/console/link/[A-Za-z0-9]{43}$`))
    const expires = Date.parse(text(doc.expires_at))
    expect(expires - before).toBeGreaterThanOrEqual(86400 * 1000 - 5000)
    expect(expires - before).toBeLessThanOrEqual(86400 * 1000 + 5000)
    const password = 'a sentence viv remembers'
    const used = await send(url, { form: { password, confirm: password }, headers: { origin: app.url } })
    expect(used.status).toBe(303)
    expect(cookieOf(used, 'mediactl_session')).toBeTruthy()
    // Once only.
    expect((await send(url)).status).not.toBe(200)
  })

  it('is refused to a caller without user.edit (403), for a more powerful user (403), elsewhere (404)', async () => {
    // A viewer sees viv but may not edit them.
    const refused = await linkOf(clients.ina!, 'viv')
    expect(refused.status).toBe(403)
    expect(text(parseXml(refused.body).error.message)).toContain('user.edit')
    // A platform administrator may not act on the installation administrator, who holds instance.view.
    const higher = await linkOf(clients.pia!, 'admin')
    expect(higher.status).toBe(403)
    expect(text(parseXml(higher.body).error.message)).toContain('instance.view')
    // Another platform's users, and unknown ones, do not exist for them.
    expect((await linkOf(clients.otto!, 'viv')).status).toBe(404)
    expect((await linkOf(clients.pia!, 'nobody')).status).toBe(404)
    // The installation administrator for anyone.
    expect((await linkOf(app.client, 'otto')).status).toBe(201)
    // Without credentials: 401 with a challenge.
    const anonymous = await fetch(`${app.url}/user/viv/sign_in_link`, { method: 'POST' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Digest /)
  })

  it('is refused for an inactive user (412): a link they could not use', async () => {
    expect((await app.client.put('/user/ina', { form: { is_active: '0' } })).status).toBe(200)
    const res = await linkOf(clients.pia!, 'ina')
    expect(res.status).toBe(412)
    expect(text(parseXml(res.body).error.message)).toContain('inactive')
  })
})
