import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { definePlugin, reply, signToken, xml } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/digest-client.js'
import { parseXml, text } from '../helpers/xml.js'

/** Routes answering who called: a Digest user, or the payload of a token of purpose `test.media`. */
const tokenTestPlugin = definePlugin({
  name: 'token-test',
  register(ctx) {
    const who = (c: { user?: { username: string }; token?: Readonly<Record<string, unknown>> }) =>
      reply.xml(
        200,
        xml.el('who', undefined, [
          xml.str('user', c.user?.username ?? ''),
          xml.str('token', JSON.stringify(c.token ?? null)),
        ]),
      )
    ctx.routes((r) => {
      r.get('/token-test/media', who, { tokenPurpose: 'test.media' })
      r.get('/token-test/plain', who)
    })
  },
})

describe('RouteOptions.tokenPurpose: Digest, or a signed token in ?token=', () => {
  let app: TestApp
  const sign = (expiresAt: Date, purpose = 'test.media') =>
    signToken(app.kernel.services.secret, purpose, { f: 7, s: 'clip' }, expiresAt)
  const later = () => new Date(Date.now() + 60_000)

  beforeAll(async () => {
    app = await startApp({ plugins: [tokenTestPlugin] })
  })
  afterAll(async () => app?.close())

  it('a valid token: the handler gets its payload and no user, without any Digest exchange', async () => {
    const res = await rawRequest(`${app.url}/token-test/media?token=${sign(later())}`, 'GET')
    expect(res.status, res.body).toBe(200)
    const doc = parseXml(res.body).who
    expect([text(doc.user), JSON.parse(text(doc.token))]).toEqual(['', { f: 7, s: 'clip', exp: expect.any(Number) }])
  })

  it('no token: Digest as on any route (401 with a challenge, then the user)', async () => {
    const anonymous = await rawRequest(`${app.url}/token-test/media`, 'GET')
    expect(anonymous.status).toBe(401)
    expect(String(anonymous.headers['www-authenticate'])).toMatch(/^Digest /)
    const res = await app.client.get('/token-test/media')
    expect([text(parseXml(res.body).who.user), text(parseXml(res.body).who.token)]).toEqual(['admin', 'null'])
  })

  it('a forged, malformed or other-purpose token is 401 with a Digest challenge; an expired one is 403', async () => {
    const good = sign(later())
    for (const token of [`${good}x`, 'nonsense', sign(later(), 'upload')]) {
      const res = await rawRequest(`${app.url}/token-test/media?token=${encodeURIComponent(token)}`, 'GET')
      expect(res.status, token).toBe(401)
      expect(String(res.headers['www-authenticate'])).toMatch(/^Digest realm=/)
    }
    const expired = await rawRequest(`${app.url}/token-test/media?token=${sign(new Date(Date.now() - 1000))}`, 'GET')
    expect(expired.status).toBe(403)
    expect(text(parseXml(expired.body).error.message)).toMatch(/^This link has expired/)
  })

  it('a token on a route without tokenPurpose opens nothing: Digest is asked', async () => {
    const res = await rawRequest(`${app.url}/token-test/plain?token=${sign(later())}`, 'GET')
    expect(res.status).toBe(401)
  })
})
