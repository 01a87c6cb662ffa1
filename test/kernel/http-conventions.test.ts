import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { destination, pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UserEntity } from '../../plugins/identity/index.js'
import { API_VERSION, type Form, definePlugin, reply, xml } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { DigestClient, type Response, parseChallenge, rawRequest } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { type XmlObject, list, parseXml, text } from '../helpers/xml.js'

const XML_TYPE = 'application/xml; charset=utf-8'

/** A plugin with routes that exercise kernel conventions no shipped route shows on its own. */
const kernelTestPlugin = definePlugin({
  name: 'kernel-test',
  register(ctx) {
    ctx.routes((r) => {
      r.get('/kernel-test/boom', () => {
        throw new Error('kaboom: secret detail from the handler')
      })
      r.get('/kernel-test/boom-value', () => {
        throw 'a thrown string'
      })
      r.post('/kernel-test/echo', async (c) => {
        const form: Form = await c.form()
        return reply.xml(
          200,
          xml.el('echo', undefined, [
            xml.str('form', JSON.stringify(form)),
            xml.str('transfer_encoding', c.req.headers['transfer-encoding'] ?? ''),
            xml.str('content_length', c.req.headers['content-length'] ?? ''),
          ]),
        )
      })
      r.get('/kernel-test/items', async (c) => {
        const total = Number(new URLSearchParams(c.search).get('total') ?? '5')
        const items = await c.list(total, async (page) => Array.from({ length: page.limit }, (_, i) => page.offset + i))
        return reply.xml(
          200,
          xml.el(
            'items',
            { href: c.links.url('kernel-test', 'items') },
            items.map((i) => xml.num('item', i)),
          ),
        )
      })
    })
  },
})

/** Checks the headers every answer carries. */
function expectCommon(res: Response): void {
  expect(res.headers['x-api-version']).toBe(API_VERSION)
  expect(res.headers['x-api-version']).toBe('2.14.3')
  expect(res.headers['set-cookie']).toBeUndefined()
}

/** Checks an error answer: status, version header, XML content type and the error body. */
function expectError(res: Response, status: number, message?: string | RegExp): XmlObject {
  expect(res.status, res.body).toBe(status)
  expectCommon(res)
  expect(res.headers['content-type']).toBe(XML_TYPE)
  const doc = parseXml(res.body)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['error'])
  expect(text(doc.error.status)).toBe(String(status))
  const said = text(doc.error.message)
  expect(said.length).toBeGreaterThan(0)
  if (typeof message === 'string') expect(said).toBe(message)
  else if (message) expect(said).toMatch(message)
  return doc.error
}

/** Checks a Digest challenge and returns its parameters. */
function expectChallenge(res: Response, realm = 'mediactl'): Record<string, string> {
  const header = res.headers['www-authenticate']
  expect(typeof header).toBe('string')
  expect(header as string).toMatch(/^Digest /)
  // Quoted as RFC 7616 writes them (qop and domain quoted, algorithm a token).
  expect(header as string).toContain(`realm="${realm}"`)
  expect(header as string).toMatch(/(?:^Digest |, )qop="auth"(?:,|$)/)
  expect(header as string).toMatch(/(?:^Digest |, )algorithm=MD5(?:,|$)/)
  expect(header as string).toMatch(/(?:^Digest |, )domain="\/"(?:,|$)/)
  const c = parseChallenge(header as string)
  expect(c.realm).toBe(realm)
  expect(c.qop).toBe('auth')
  expect(c.algorithm).toBe('MD5')
  expect(c.domain).toBe('/')
  expect(c.nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
  expect(c.opaque).toMatch(/^[A-Za-z0-9_-]{32}$/)
  return c
}

function expectOk(res: Response, status = 200): XmlObject {
  expect(res.status, res.body).toBe(status)
  expectCommon(res)
  expect(res.headers['content-type']).toBe(XML_TYPE)
  return parseXml(res.body)
}

const BOUNDARY = '----mediactl-kernel-test'

function multipart(fields: [string, string][]): Buffer {
  const parts = fields.map(
    ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`, 'utf8')
}

const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`

describe('HTTP conventions (default limits)', () => {
  let app: TestApp
  let logDir: string
  let logFile: string

  beforeAll(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'mediactl-log-'))
    logFile = join(logDir, 'access.log')
    const logger = pino({ level: 'info' }, destination({ dest: logFile, sync: true }))
    app = await startApp({ plugins: [kernelTestPlugin], logger })
    for (const name of ['Second', 'Third']) {
      expectOk(await app.client.post('/platforms', { form: { name, max_users: 0, max_space: 0 } }), 201)
    }
  })
  afterAll(async () => {
    await app?.close()
    if (logDir) rmSync(logDir, { recursive: true, force: true })
  })

  async function platformCount(): Promise<number> {
    const doc = expectOk(await app.client.get('/platforms'))
    return list(doc.platforms.platform).length
  }

  describe('Range pagination', () => {
    it('answers entities=0-0 with one entity, Content-Range and Accept-Ranges', async () => {
      const total = await platformCount()
      expect(total).toBeGreaterThanOrEqual(3)
      const res = await app.client.get('/platforms', { headers: { range: 'entities=0-0' } })
      const doc = expectOk(res)
      expect(res.headers['content-range']).toBe(`entities 0-0/${total}`)
      expect(res.headers['accept-ranges']).toBe('entities')
      const items = list(doc.platforms.platform)
      expect(items).toHaveLength(1)
      expect(text(items[0]!.slug)).toBe('default')
    })

    it('gives the requested slice and announces Accept-Ranges without Range', async () => {
      const total = await platformCount()
      const whole = await app.client.get('/platforms')
      expect(whole.headers['content-range']).toBe(`entities 0-${total - 1}/${total}`)
      expect(whole.headers['accept-ranges']).toBe('entities')
      const res = await app.client.get('/platforms', { headers: { range: 'entities=1-2' } })
      const doc = expectOk(res)
      expect(res.headers['content-range']).toBe(`entities 1-2/${total}`)
      expect(list(doc.platforms.platform).map((p) => text(p.slug))).toEqual(['second', 'third'])
    })

    it('uses only the first range of a multi-range header', async () => {
      const total = await platformCount()
      const res = await app.client.get('/platforms', { headers: { range: 'entities=1-1,0-0, 2-2' } })
      const doc = expectOk(res)
      expect(res.headers['content-range']).toBe(`entities 1-1/${total}`)
      expect(list(doc.platforms.platform).map((p) => text(p.slug))).toEqual(['second'])
    })

    it.each([
      ['an end before the start', 'entities=5-2'],
      ['the wrong unit', 'items=0-4'],
      ['a malformed value', 'entities=x'],
    ])('answers 416 for %s', async (_label, range) => {
      const total = await platformCount()
      const res = await app.client.get('/platforms', { headers: { range } })
      expectError(res, 416)
      expect(res.headers['content-range']).toBe(`entities */${total}`)
    })

    it('answers 200 with an empty list for a well-formed range starting at or past the end', async () => {
      const total = await platformCount()
      for (const range of [`entities=${total}-${total + 49}`, `entities=${total + 3}-`]) {
        const res = await app.client.get('/platforms', { headers: { range } })
        const doc = expectOk(res)
        expect(doc.platforms.platform, range).toBeUndefined()
        expect(res.headers['content-range']).toBe(`entities */${total}`)
      }
    })

    it('answers 200 for any range of an empty list', async () => {
      const res = await app.client.get('/kernel-test/items?total=0', { headers: { range: 'entities=3-9' } })
      const doc = expectOk(res)
      expect(res.headers['content-range']).toBe('entities */0')
      expect(res.headers['accept-ranges']).toBe('entities')
      expect(list(doc.items.item)).toEqual([])
    })

    it('runs an open range to the end and clips a long one', async () => {
      const open = await app.client.get('/kernel-test/items?total=5', { headers: { range: 'entities=3-' } })
      expect(open.headers['content-range']).toBe('entities 3-4/5')
      expect(list(expectOk(open).items.item).map(text)).toEqual(['3', '4'])
      const clipped = await app.client.get('/kernel-test/items?total=5', { headers: { range: 'entities=2-99' } })
      expect(clipped.headers['content-range']).toBe('entities 2-4/5')
    })
  })

  describe('content negotiation', () => {
    it('answers 406 with the XML error body for Accept: image/png', async () => {
      const res = await app.client.get('/', { headers: { accept: 'image/png' } })
      expectError(res, 406, 'Only XML is available: send Accept: application/xml (or leave Accept out).')
    })

    it('answers 406 before authentication', async () => {
      const res = await rawRequest(app.url + '/', 'GET', { headers: { accept: 'application/json' } })
      expectError(res, 406)
      expect(res.headers['www-authenticate']).toBeUndefined()
    })

    it.each([['text/xml'], ['*/*'], ['application/xml'], ['application/vnd.mediactl+xml'], [undefined]])(
      'answers 200 for Accept: %s',
      async (accept) => {
        const res = await app.client.get('/', { headers: accept === undefined ? {} : { accept } })
        const doc = expectOk(res)
        expect(doc.services['@href']).toBe(`${app.url}/`)
      },
    )
  })

  describe('Digest authentication', () => {
    it('answers 401 with a Digest challenge without Authorization', async () => {
      const res = await rawRequest(app.url + '/platforms', 'GET')
      expectError(res, 401, 'Authentication required: use HTTP Digest with your username and API key.')
      const c = expectChallenge(res)
      expect(c.stale).toBeUndefined()
    })

    it.each([['Digest garbage'], ['Basic YWRtaW46c2VjcmV0'], ['Digest username="admin'], ['nonsense']])(
      'answers 401 with a challenge for the malformed Authorization %j',
      async (authorization) => {
        const res = await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization } })
        expectError(res, 401, 'Malformed Authorization header: expected HTTP Digest credentials.')
        expectChallenge(res)
      },
    )

    it('answers 401 with a challenge for incomplete Digest credentials', async () => {
      const res = await rawRequest(app.url + '/', 'GET', { headers: { authorization: 'Digest username="admin"' } })
      expectError(res, 401, /^Incomplete Digest credentials/)
      expectChallenge(res)
    })

    it('answers 401 for a wrong API key', async () => {
      const res = await app.clientFor('admin', 'not-the-right-key').get('/')
      expectError(res, 401, 'Wrong username or API key.')
      expectChallenge(res)
    })

    it('answers 401 for an unknown user, with the same message', async () => {
      const res = await app.clientFor('nobody', app.admin.apiKey).get('/')
      expectError(res, 401, 'Wrong username or API key.')
    })

    it('answers 401 to a replayed nonce count', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      await client.handshake()
      const authorization = client.authorization('GET', '/platforms')
      const first = await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization } })
      expectOk(first)
      const replay = await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization } })
      expectError(replay, 401, 'Replayed request: use each nonce count (nc) once, counting up.')
      expectChallenge(replay)
      const next = await rawRequest(app.url + '/platforms', 'GET', {
        headers: { authorization: client.authorization('GET', '/platforms') },
      })
      expectOk(next)
    })

    it('accepts concurrent requests sharing a nonce whose counts arrive out of order', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      await client.handshake()
      const first = client.authorization('GET', '/platforms')
      const second = client.authorization('GET', '/platforms')
      expectOk(await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization: second } }))
      expectOk(await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization: first } }))
      const replay = await rawRequest(app.url + '/platforms', 'GET', { headers: { authorization: first } })
      expectError(replay, 401, 'Replayed request: use each nonce count (nc) once, counting up.')
    })

    it('answers 400 when the Digest uri does not match the request target', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      await client.handshake()
      const res = await rawRequest(app.url + '/', 'GET', {
        headers: { authorization: client.authorization('GET', '/platforms') },
      })
      expectError(res, 400, 'The Digest uri does not match the request target.')
      const query = await rawRequest(app.url + '/platforms?a=1', 'GET', {
        headers: { authorization: client.authorization('GET', '/platforms') },
      })
      expectError(query, 400, 'The Digest uri does not match the request target.')
    })

    it('accepts credentials sent in a request header named WWW-Authenticate', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      await client.handshake()
      const res = await rawRequest(app.url + '/platforms', 'GET', {
        headers: { 'www-authenticate': client.authorization('GET', '/platforms') },
      })
      const doc = expectOk(res)
      expect(doc.platforms['@href']).toBe(`${app.url}/platforms`)
    })

    it('answers 401 for a wrong opaque', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      await client.handshake()
      const res = await rawRequest(app.url + '/', 'GET', {
        headers: { authorization: client.authorization('GET', '/', { opaque: 'not-the-opaque' }) },
      })
      expectError(res, 401, 'The opaque value must be echoed from the challenge.')
      expectChallenge(res)
    })

    it('answers 401 for a nonce the server did not issue', async () => {
      const client = app.clientFor('admin', app.admin.apiKey)
      const challenge = await client.handshake()
      challenge.nonce = `${challenge.nonce!.slice(0, -2)}xx`
      const res = await rawRequest(app.url + '/', 'GET', {
        headers: { authorization: client.authorization('GET', '/') },
      })
      expectError(res, 401, 'Unknown nonce: authenticate again with the new challenge.')
    })

    it('answers 401 to an inactive user', async () => {
      const sleeper = await app.createUser({ username: 'sleeper' })
      expectOk(await sleeper.get('/'))
      const em = app.kernel.em()
      const user = await em.findOneOrFail(UserEntity, { username: 'sleeper' })
      user.isActive = false
      await em.flush()
      const res = await sleeper.get('/')
      expectError(res, 401, 'This user is inactive.')
      expectChallenge(res)
      const fresh = app.clientFor('sleeper', sleeper.apiKey)
      expectError(await fresh.get('/'), 401, 'This user is inactive.')
    })

    it('answers 401, not 404, to an unauthenticated request for an unknown path', async () => {
      const res = await rawRequest(app.url + '/no/such/thing', 'GET')
      expectError(res, 401)
      expectChallenge(res)
      const post = await rawRequest(app.url + '/no/such/thing', 'POST')
      expectError(post, 401)
    })

    it('answers 404 to an authenticated request for an unknown path', async () => {
      expectError(await app.client.get('/no/such/thing'), 404, 'Nothing at the requested address.')
      expectError(await app.client.delete('/platforms'), 404)
    })
  })

  describe('forms', () => {
    it('answers 400 for a POST body that is not a form', async () => {
      const res = await app.client.post('/platforms', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Json', max_users: 0, max_space: 0 }),
      })
      expectError(res, 400, 'Send the request fields as application/x-www-form-urlencoded or multipart/form-data.')
    })

    it('reads multipart/form-data fields like urlencoded ones', async () => {
      const res = await app.client.post('/platforms', {
        headers: { 'content-type': MULTIPART_TYPE },
        body: multipart([
          ['name', 'Multipart Crème 🎬'],
          ['max_users', '12'],
          ['max_space', '3456'],
        ]),
      })
      const doc = expectOk(res, 201)
      expect(text(doc.platform.name)).toBe('Multipart Crème 🎬')
      expect(text(doc.platform.slug)).toBe('multipart-creme')
      expect(text(doc.platform.max_users)).toBe('12')
      expect(text(doc.platform.max_space)).toBe('3456')
    })

    it('answers 412 listing every missing field of a multipart form', async () => {
      const res = await app.client.post('/platforms', {
        headers: { 'content-type': MULTIPART_TYPE },
        body: multipart([['max_users', 'x']]),
      })
      const error = expectError(res, 412)
      const fields = Object.fromEntries(list(error.field).map((f) => [f['@name'], text(f)]))
      expect(fields).toEqual({ name: 'is required', max_users: 'must be a whole number', max_space: 'is required' })
    })

    it('turns bracket notation into nested values (urlencoded and multipart)', async () => {
      const body = 'metadata[genre]=jazz&metadata%5Byear%5D=1959&permission[Media][edit]=1&tags[]=a&tags[]=b&plain=x'
      const res = await app.client.post('/kernel-test/echo', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
      const expected = {
        metadata: { genre: 'jazz', year: '1959' },
        permission: { Media: { edit: '1' } },
        tags: ['a', 'b'],
        plain: 'x',
      }
      expect(JSON.parse(text(expectOk(res).echo.form))).toEqual(expected)
      const multi = await app.client.post('/kernel-test/echo', {
        headers: { 'content-type': MULTIPART_TYPE },
        body: multipart([
          ['metadata[genre]', 'jazz'],
          ['metadata[year]', '1959'],
          ['permission[Media][edit]', '1'],
          ['tags[]', 'a'],
          ['tags[]', 'b'],
          ['plain', 'x'],
        ]),
      })
      expect(JSON.parse(text(expectOk(multi).echo.form))).toEqual(expected)
    })

    it('ignores prototype-polluting field names', async () => {
      const res = await app.client.post('/kernel-test/echo', {
        form: { '__proto__[polluted]': '1', 'constructor[prototype][polluted]': '1', ok: '1' },
      })
      expect(JSON.parse(text(expectOk(res).echo.form))).toEqual({ ok: '1' })
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    })

    it('round-trips names with XML specials, accents and emoji byte for byte', async () => {
      const name = `Q]]>A <b> & "c" 'd' ]]]]> é ü ß 🎬👩‍👩‍👧 日本`
      const created = await app.client.post('/platforms', { form: { name, max_users: 0, max_space: 0 } })
      const doc = expectOk(created, 201)
      expect(text(doc.platform.name)).toBe(name)
      const slug = text(doc.platform.slug)
      expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
      expect(doc.platform['@href']).toBe(`${app.url}/platform/${slug}`)

      const fetched = await app.client.get(`/platform/${slug}`)
      const info = expectOk(fetched)
      expect(Buffer.from(text(info.platform.name), 'utf8').equals(Buffer.from(name, 'utf8'))).toBe(true)
      // The raw body never carries an unsplit terminator inside the CDATA section.
      const raw = /<name>(.*)<\/name>/s.exec(fetched.body)![1]!
      expect(raw.startsWith('<![CDATA[')).toBe(true)
      expect(raw.endsWith(']]>')).toBe(true)
      expect(raw.replace(/\]\]><!\[CDATA\[/g, '').slice('<![CDATA['.length, -3)).toBe(name)

      const listed = expectOk(await app.client.get('/platforms'))
      const names = list(listed.platforms.platform).map((p) => text(p.name))
      expect(names).toContain(name)
    })

    it('round-trips the same characters in percent-encoded and multipart bodies', async () => {
      const name = `<&>"' ]]> ñ 🎉`
      const multi = await app.client.post('/platforms', {
        headers: { 'content-type': MULTIPART_TYPE },
        body: multipart([
          ['name', name],
          ['max_users', '0'],
          ['max_space', '0'],
        ]),
      })
      const slug = text(expectOk(multi, 201).platform.slug)
      expect(text(expectOk(await app.client.get(`/platform/${slug}`)).platform.name)).toBe(name)
    })

    it('decodes raw UTF-8 bytes in a urlencoded body as UTF-8', async () => {
      const body = Buffer.from('name=Crème brûlée – 日本 🎬&max_users=0&max_space=0', 'utf8')
      const res = await app.client.post('/platforms', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
        body,
      })
      const doc = expectOk(res, 201)
      expect(text(doc.platform.name)).toBe('Crème brûlée – 日本 🎬')
      expect(text(doc.platform.slug)).toBe('creme-brulee')
    })

    it('sends bodies chunked when no Content-Length is given (for the limit tests)', async () => {
      const res = await app.client.post('/kernel-test/echo', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1',
      })
      const doc = expectOk(res)
      expect(text(doc.echo.transfer_encoding)).toBe('chunked')
      expect(text(doc.echo.content_length)).toBe('')
    })
  })

  describe('errors', () => {
    it('answers 500 with the XML error body and no stack trace', async () => {
      const res = await app.client.get('/kernel-test/boom')
      const id = res.headers['x-request-id'] as string
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      expectError(res, 500, `Internal error (request ${id}): the server log has the details.`)
      expect(res.body).not.toMatch(/^\s*at /m)
      expect(res.body).not.toMatch(/\bat .*\.(?:ts|js):\d+/)
      expect(res.body).not.toContain('kaboom')
      expect(res.body).not.toContain('Error:')
      expect(res.body).not.toContain(process.cwd())
    })

    it('answers 500 for a thrown non-Error value too', async () => {
      const res = await app.client.get('/kernel-test/boom-value')
      const id = res.headers['x-request-id'] as string
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      expectError(res, 500, `Internal error (request ${id}): the server log has the details.`)
      expect(res.body).not.toContain('a thrown string')
    })

    it('keeps serving after a 500', async () => {
      expectOk(await app.client.get('/'))
    })
  })

  describe('access log', () => {
    interface LogLine {
      msg: string
      method?: string
      path?: string
      status?: number
      ms?: number
      user?: string | null
      id?: string
      level: number
      err?: { message?: string; stack?: string }
    }

    function lines(): LogLine[] {
      return readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine)
    }

    async function accessLines(path: string, count: number): Promise<LogLine[]> {
      const found = (): LogLine[] => lines().filter((l) => l.msg === 'request' && l.path === path)
      // The line is written when the response closes, just after the client has it.
      await waitFor(() => found().length >= count, { message: `${count} access line(s) for ${path}` }).catch(
        () => undefined,
      )
      return found()
    }

    it('writes one line per request with method, path, status, ms and user', async () => {
      await rawRequest(app.url + '/?log=anonymous', 'GET')
      await app.client.get('/platforms?log=admin')
      await app.client.get('/nowhere?log=missing')
      await app.client.post('/kernel-test/echo?log=post', { form: { a: '1' } })
      await app.client.get('/?log=406', { headers: { accept: 'image/png' } })

      const anonymous = await accessLines('/?log=anonymous', 1)
      expect(anonymous).toHaveLength(1)
      expect(anonymous[0]).toMatchObject({ method: 'GET', path: '/?log=anonymous', status: 401, user: null })

      const admin = await accessLines('/platforms?log=admin', 1)
      expect(admin).toHaveLength(1)
      expect(admin[0]).toMatchObject({ method: 'GET', status: 200, user: 'admin' })

      const missing = await accessLines('/nowhere?log=missing', 1)
      expect(missing).toHaveLength(1)
      expect(missing[0]).toMatchObject({ method: 'GET', status: 404, user: 'admin' })

      const post = await accessLines('/kernel-test/echo?log=post', 1)
      expect(post).toHaveLength(1)
      expect(post[0]).toMatchObject({ method: 'POST', status: 200, user: 'admin' })

      const refused = await accessLines('/?log=406', 1)
      expect(refused).toHaveLength(1)
      expect(refused[0]).toMatchObject({ method: 'GET', status: 406, user: null })

      for (const line of [...anonymous, ...admin, ...missing, ...post, ...refused]) {
        expect(line.level).toBe(30)
        expect(typeof line.ms).toBe('number')
        expect(line.ms).toBeGreaterThanOrEqual(0)
        expect(line.ms).toBeLessThan(30_000)
      }
      // Still exactly one line each once everything has settled: lines come in the order
      // responses close, so once a later request's line is there, no earlier one is pending.
      await rawRequest(app.url + '/?log=settled', 'GET')
      expect(await accessLines('/?log=settled', 1)).toHaveLength(1)
      for (const path of ['/?log=anonymous', '/platforms?log=admin', '/nowhere?log=missing', '/?log=406']) {
        expect(lines().filter((l) => l.msg === 'request' && l.path === path)).toHaveLength(1)
      }
    })

    it('never logs credentials', async () => {
      await app.client.get('/?log=secret-check')
      await accessLines('/?log=secret-check', 1)
      const all = readFileSync(logFile, 'utf8')
      expect(all).not.toContain(app.admin.apiKey)
      expect(all).not.toMatch(/response="/)
      expect(all).not.toMatch(/"authorization"/i)
    })

    it('masks the values of query parameters named like a token (signed links carry credentials)', async () => {
      await rawRequest(app.url + '/?log=token-check&token=s3cr3t.value&upload_token=other&Token=x', 'GET')
      const masked = '/?log=token-check&token=[redacted]&upload_token=[redacted]&Token=[redacted]'
      expect(await accessLines(masked, 1)).toHaveLength(1)
      const all = readFileSync(logFile, 'utf8')
      expect(all).not.toContain('s3cr3t.value')
      expect(all).not.toContain('=other')
    })

    it('logs the details of a 500 on the server side', async () => {
      const res = await app.client.get('/kernel-test/boom?log=boom')
      const id = res.headers['x-request-id']
      const access = await accessLines('/kernel-test/boom?log=boom', 1)
      expect(access).toHaveLength(1)
      expect(access[0]).toMatchObject({ status: 500, user: 'admin', id })
      const failure = lines().find((l) => l.msg === 'request failed' && l.path === '/kernel-test/boom?log=boom')
      expect(failure?.err?.message).toBe('kaboom: secret detail from the handler')
      // The id the client got finds the stack in the log.
      expect(failure).toMatchObject({ id })
      expect(res.body).toContain(`request ${id as string}`)
    })
  })
})

describe('HTTP conventions (small body limits)', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ plugins: [kernelTestPlugin], config: { http: { body_limit: 1024, max_fields: 5 } } })
  })
  afterAll(async () => app?.close())

  const big = new URLSearchParams({ name: 'x'.repeat(2000), max_users: '0', max_space: '0' }).toString()
  const sixFields = 'name=A&max_users=0&max_space=0&a=1&b=2&c=3'

  it('accepts a body within the limits', async () => {
    expectOk(await app.client.post('/platforms', { form: { name: 'Small', max_users: 0, max_space: 0 } }), 201)
  })

  it('answers 413 for a urlencoded body over http.body_limit (Content-Length)', async () => {
    const res = await app.client.post('/platforms', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(big.length) },
      body: big,
    })
    expectError(res, 413, 'The request body is larger than 1024 bytes.')
  })

  it('answers 413 for a chunked urlencoded body over http.body_limit', async () => {
    const res = await app.client.post('/platforms', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: big,
    })
    expectError(res, 413, 'The request body is larger than 1024 bytes.')
  })

  it('answers 413 for more fields than http.max_fields (Content-Length)', async () => {
    const res = await app.client.post('/platforms', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(sixFields.length) },
      body: sixFields,
    })
    expectError(res, 413, 'A request may carry at most 5 fields.')
  })

  it('answers 413 for more fields than http.max_fields (chunked)', async () => {
    const res = await app.client.post('/platforms', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: sixFields,
    })
    expectError(res, 413, 'A request may carry at most 5 fields.')
  })

  it('answers 413 for a multipart body over the limits, with or without Content-Length', async () => {
    const large = multipart([
      ['name', 'y'.repeat(2000)],
      ['max_users', '0'],
      ['max_space', '0'],
    ])
    const withLength = await app.client.post('/platforms', {
      headers: { 'content-type': MULTIPART_TYPE, 'content-length': String(large.length) },
      body: large,
    })
    expectError(withLength, 413)
    const chunked = await app.client.post('/platforms', { headers: { 'content-type': MULTIPART_TYPE }, body: large })
    expectError(chunked, 413)
    const many = multipart([
      ['name', 'A'],
      ['max_users', '0'],
      ['max_space', '0'],
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ])
    const tooMany = await app.client.post('/platforms', { headers: { 'content-type': MULTIPART_TYPE }, body: many })
    expectError(tooMany, 413, 'A request may carry at most 5 fields.')
  })

  it('answers 413 for a chunked multipart body whose file part a field-only route discards', async () => {
    const body = Buffer.concat([
      multipart([
        ['name', 'WithFile'],
        ['max_users', '0'],
        ['max_space', '0'],
      ]).subarray(0, -`--${BOUNDARY}--\r\n`.length),
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="path"; filename="big.bin"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n${'z'.repeat(4000)}\r\n--${BOUNDARY}--\r\n`,
      ),
    ])
    const res = await app.client.post('/platforms', { headers: { 'content-type': MULTIPART_TYPE }, body })
    expectError(res, 413, 'The request body is larger than 1024 bytes.')
  })

  it('stores nothing when a body is refused', async () => {
    const doc = expectOk(await app.client.get('/platforms'))
    expect(list(doc.platforms.platform).map((p) => text(p.slug))).toEqual(['default', 'small'])
  })

  it('keeps the connection usable after a 413', async () => {
    expectOk(await app.client.get('/'))
  })
})

describe('HTTP conventions (expiring nonces)', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ config: { auth: { nonce_ttl: 1 } } })
  })
  afterAll(async () => app?.close())

  it('answers 401 with stale=true for an expired nonce, then accepts the new one', async () => {
    const client = new DigestClient(app.url, 'admin', app.admin.apiKey)
    const wrong = new DigestClient(app.url, 'admin', 'wrong-key')
    await wrong.handshake()
    await client.handshake()
    // nonce_ttl is 1 s: the nonce serves until it expires (wrong's, older, has expired by then too).
    const withNonce = (): Promise<Response> =>
      rawRequest(app.url + '/', 'GET', { headers: { authorization: client.authorization('GET', '/') } })
    let res = await withNonce()
    expect(res.status).toBe(200)
    await waitFor(async () => (res = await withNonce()).status !== 200, {
      message: 'the nonce to expire',
      interval: 100,
    })
    expectError(res, 401, 'The nonce has expired: retry with the new one.')
    const challenge = expectChallenge(res)
    expect(challenge.stale).toBe('true')
    expect(String(res.headers['www-authenticate'])).toMatch(/, stale=true$/)

    // A wrong key with an expired nonce is not "stale": the client must not just retry.
    const refused = await rawRequest(app.url + '/', 'GET', {
      headers: { authorization: wrong.authorization('GET', '/') },
    })
    expectError(refused, 401, 'Wrong username or API key.')
    expect(String(refused.headers['www-authenticate'])).not.toContain('stale')

    // A standard client takes the new nonce from the stale challenge and retries.
    expectOk(await client.get('/'))
  })
})
