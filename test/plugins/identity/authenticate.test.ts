import { constants, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { DECLARATION, NO_USER, XML_TYPE, expectError, makeProfile, userWithProfile } from './users.helpers.js'

const WRONG = 'Wrong password, or the user is inactive.'
const NO_CIPHER = 'Send the password encrypted with the public key (GET /authentication/public_key), in hex, as cipher.'
const UNDECRYPTABLE =
  "The cipher does not decrypt with the installation's key: encrypt with RSA-OAEP (SHA-1 or SHA-256) and send it in hex."

/** The hex cipher of a password, as a client makes it with the served public key. */
function encrypt(pem: string, password: string, oaepHash: 'sha1' | 'sha256' = 'sha1'): string {
  return publicEncrypt(
    { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash },
    Buffer.from(password),
  ).toString('hex')
}

/** A 401 of the password check: an XML error, and no Digest challenge (the caller's credentials were fine). */
function expectRefused(res: Response, message: string): void {
  expectError(res, 401, message)
  expect(res.headers['www-authenticate']).toBeUndefined()
}

describe('GET /authentication/public_key', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('serves the installation public key as PEM, without authentication', async () => {
    const res = await rawRequest(`${app.url}/authentication/public_key`, 'GET')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/x-pem-file')
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expect(res.headers['www-authenticate']).toBeUndefined()
    expect(res.body).toBe(readFileSync(join(app.dataDir, 'keys', 'public.pem'), 'utf8'))
    expect(res.body).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/)
    // With credentials too, and HEAD without the body.
    expect((await app.client.get('/authentication/public_key')).body).toBe(res.body)
    const head = await rawRequest(`${app.url}/authentication/public_key`, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
  })

  it('may be asked for as application/x-pem-file; other non-XML types answer 406', async () => {
    const pem = await rawRequest(`${app.url}/authentication/public_key`, 'GET', {
      headers: { accept: 'application/x-pem-file' },
    })
    expect(pem.status).toBe(200)
    expect(pem.body).toMatch(/^-----BEGIN PUBLIC KEY-----/)
    const png = await rawRequest(`${app.url}/authentication/public_key`, 'GET', { headers: { accept: 'image/png' } })
    expect(png.status).toBe(406)
    // XML routes still refuse the PEM type.
    const root = await app.client.get('/', { headers: { accept: 'application/x-pem-file' } })
    expect(root.status).toBe(406)
  })
})

describe('GET /user/<username>/authenticate', () => {
  let app: TestApp
  let pem: string
  let watcher: DigestClient
  let bare: DigestClient
  let stranger: DigestClient

  const check = (client: DigestClient, username: string, cipher: string): Promise<Response> =>
    client.get(`/user/${username}/authenticate`, { headers: { cipher } })

  beforeAll(async () => {
    app = await startApp()
    pem = (await rawRequest(`${app.url}/authentication/public_key`, 'GET')).body
    const create = (username: string, password: string, extra: Record<string, string> = {}) =>
      app.client.post('/platform/default/users', {
        form: { username, password, email: `${username}@example.org`, profile: 'default-viewer', ...extra },
      })
    expect((await create('alice', 'correct horse')).status).toBe(201)
    expect((await create('sleepy', 'zzz', { is_active: '0' })).status).toBe(201)
    expect((await create('unicode', 'pässwörd ✓ 🔑')).status).toBe(201)
    await userWithProfile(app, 'nopass', 'default-viewer')
    watcher = await userWithProfile(app, 'watcher', 'default-viewer')
    await makeProfile(app, 'default-bare', [])
    bare = await userWithProfile(app, 'bare', 'default-bare', { password: 'bare pw' })
    expect((await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    stranger = await userWithProfile(app, 'stranger', 'other-administrator', { platform: 'other' })
  })
  afterAll(async () => app?.close())

  function expectRedirect(res: Response, username: string): void {
    expect(res.status, res.body).toBe(302)
    expect(res.headers.location).toBe(`${app.url}/user/${username}`)
    expect(res.headers['content-type']).toBe(XML_TYPE)
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expect(res.body).toBe(`${DECLARATION}<redirection><url><![CDATA[${app.url}/user/${username}]]></url></redirection>`)
  }

  it('nobody checks the password of a user more powerful than themselves (403), whatever the password', async () => {
    const strong = await app.client.post('/platform/default/users', {
      form: { username: 'strong', password: 'secret', email: 'strong@example.org', profile: 'default-administrator' },
    })
    expect(strong.status).toBe(201)
    for (const password of ['secret', 'wrong']) {
      const res = await check(watcher, 'strong', encrypt(pem, password))
      expect(res.status, res.body).toBe(403)
      expect(res.body).toContain('The profile of "strong" grants permissions you do not hold')
    }
    // An equal or weaker profile may be checked: the viewer checks another viewer.
    expectRedirect(await check(watcher, 'alice', encrypt(pem, 'correct horse')), 'alice')
  })

  it('a right password (RSA-OAEP SHA-1, cipher header) answers 302 to the user', async () => {
    expectRedirect(await check(app.client, 'alice', encrypt(pem, 'correct horse')), 'alice')
  })

  it('RSA-OAEP SHA-256 works too, and cipher may be a query parameter, in any case of hex', async () => {
    expectRedirect(await check(app.client, 'alice', encrypt(pem, 'correct horse', 'sha256')), 'alice')
    const cipher = encrypt(pem, 'correct horse', 'sha256').toUpperCase()
    expectRedirect(await app.client.get(`/user/alice/authenticate?cipher=${cipher}`), 'alice')
    expectRedirect(await check(app.client, 'unicode', encrypt(pem, 'pässwörd ✓ 🔑')), 'unicode')
  })

  it('a wrong password answers 401, with either hash', async () => {
    for (const hash of ['sha1', 'sha256'] as const) {
      for (const password of ['correct horse ', 'Correct horse', '', 'x']) {
        expectRefused(await check(app.client, 'alice', encrypt(pem, password, hash)), WRONG)
      }
    }
  })

  it('an inactive user, or one without a password, answers 401 even with the right password', async () => {
    expectRefused(await check(app.client, 'sleepy', encrypt(pem, 'zzz')), WRONG)
    for (const password of ['', 'anything']) {
      expectRefused(await check(app.client, 'nopass', encrypt(pem, password)), WRONG)
    }
  })

  it('a missing, non-hex or undecryptable cipher answers 401, never 500', async () => {
    expectRefused(await app.client.get('/user/alice/authenticate'), NO_CIPHER)
    expectRefused(await check(app.client, 'alice', '  '), NO_CIPHER)
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey
    const garbage = [
      'zz',
      'abc',
      'not hex at all',
      '0x' + encrypt(pem, 'correct horse'),
      randomBytes(10).toString('hex'),
      randomBytes(256).toString('hex'),
      randomBytes(2000).toString('hex'),
      // Its last byte cut off (cutting the first would leave the same number whenever that byte is 0: 1 run in 256).
      encrypt(pem, 'correct horse').slice(0, -2),
      publicEncrypt({ key: other, padding: constants.RSA_PKCS1_OAEP_PADDING }, Buffer.from('correct horse')).toString(
        'hex',
      ),
      publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_PADDING }, Buffer.from('correct horse')).toString('hex'),
      publicEncrypt({ key: pem, padding: constants.RSA_NO_PADDING }, Buffer.alloc(256, 1)).toString('hex'),
    ]
    for (const cipher of garbage) expectRefused(await check(app.client, 'alice', cipher), UNDECRYPTABLE)
    expectRefused(await app.client.get(`/user/alice/authenticate?cipher=${encodeURIComponent('%%%')}`), UNDECRYPTABLE)
  })

  it('the caller must see the user: themselves, or user.view on their platform', async () => {
    expectRedirect(await check(watcher, 'alice', encrypt(pem, 'correct horse')), 'alice')
    expectRedirect(await check(bare, 'bare', encrypt(pem, 'bare pw')), 'bare')
    expectError(await check(bare, 'alice', encrypt(pem, 'correct horse')), 404, NO_USER('alice'))
    expectError(await check(stranger, 'alice', encrypt(pem, 'correct horse')), 404, NO_USER('alice'))
    expectError(await check(app.client, 'ghost', encrypt(pem, 'x')), 404, NO_USER('ghost'))
    // The installation administrator sees every platform.
    expectRefused(await check(app.client, 'stranger', encrypt(pem, 'x')), WRONG)
  })

  it('an anonymous caller gets the Digest challenge', async () => {
    const res = await rawRequest(`${app.url}/user/alice/authenticate`, 'GET', {
      headers: { cipher: encrypt(pem, 'correct horse') },
    })
    expect(res.status).toBe(401)
    expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
  })
})

describe('an installation without its key pair', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
    rmSync(join(app.dataDir, 'keys'), { recursive: true, force: true })
  })
  afterAll(async () => app?.close())

  it('answers 503 with the fix, not 500', async () => {
    const message = 'Password checks are not set up on this installation: its operator must run "mediactl init".'
    expectError(await rawRequest(`${app.url}/authentication/public_key`, 'GET'), 503, message)
    expectError(await app.client.get('/user/admin/authenticate', { headers: { cipher: 'abcd' } }), 503, message)
  })
})
