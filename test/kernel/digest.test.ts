import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DigestAuth, type DigestRefusal, MAX_DIGEST_HEADER, parseDigestHeader } from '../../src/kernel/http/digest.js'
import { HttpError } from '../../src/kernel/http/errors.js'
import { MemoryNonceCounter } from '../../src/kernel/state/memory-nonce-counter.js'
import type { DigestCredentials } from '../../src/kernel/ports/credentials.port.js'
import { parseChallenge } from '../helpers/digest-client.js'

const md5 = (value: string): string => createHash('md5').update(value).digest('hex')

/** The grammar as it was first written, with regular expressions: the scanner must parse exactly as it does. */
function referenceParse(header: string): Record<string, string> | null {
  if (header.length > MAX_DIGEST_HEADER) return null
  const match = /^\s*Digest\s+(.+)$/is.exec(header)
  if (!match) return null
  const params: Record<string, string> = Object.create(null) as Record<string, string>
  const re = /\s*([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/gy
  const body = match[1]!
  let consumed = 0
  let part: RegExpExecArray | null
  while (consumed < body.length && (part = re.exec(body)) !== null) {
    const name = part[1]!.toLowerCase()
    if (name in params) return null
    params[name] = part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : part[3]!
    consumed = re.lastIndex
  }
  return consumed >= body.trimEnd().length ? params : null
}

describe('parseDigestHeader', () => {
  it('parses exactly as the regular expressions of its grammar, on any input', () => {
    const pieces = [
      'Digest',
      'digest',
      'DIGEST',
      'Digestx',
      'ſ',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u2028',
      '\ufeff',
      // Every other white space JavaScript's \s knows.
      '\v',
      '\f',
      '\u1680',
      '\u2000',
      '\u200a',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\u180e',
    ].concat([
      '=',
      ',',
      '"',
      '\\',
      'a',
      'nc',
      'uri',
      'username',
      'Realm',
      '0',
      '-',
      '_',
      '/',
      'x y',
      '\\"',
      '\\\n',
      'é',
      '😀',
    ])
    const headerLike = fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join(''))
    const digestLike = fc
      .tuple(fc.constantFrom('Digest ', ' digest  ', 'Digest\t', 'Digest'), headerLike)
      .map(([head, rest]) => head + rest)
    fc.assert(
      fc.property(fc.oneof(headerLike, digestLike, fc.string({ unit: 'binary', maxLength: 60 })), (header) => {
        const expected = referenceParse(header)
        const actual = parseDigestHeader(header)
        expect(actual === null ? null : { ...actual }).toEqual(expected === null ? null : { ...expected })
      }),
      { numRuns: 20_000 },
    )
  })

  it('parses quoted and unquoted parameters', () => {
    const p = parseDigestHeader(
      'Digest username="jane", realm="mediactl", nonce="abc.def.ghi", uri="/platforms?x=1", ' +
        'qop=auth, nc=00000001, cnonce="c0ffee", response="0123456789abcdef0123456789abcdef", opaque="op", algorithm=MD5',
    )
    expect({ ...p }).toEqual({
      username: 'jane',
      realm: 'mediactl',
      nonce: 'abc.def.ghi',
      uri: '/platforms?x=1',
      qop: 'auth',
      nc: '00000001',
      cnonce: 'c0ffee',
      response: '0123456789abcdef0123456789abcdef',
      opaque: 'op',
      algorithm: 'MD5',
    })
  })

  it('is case-insensitive on the scheme and the parameter names', () => {
    expect({ ...parseDigestHeader('digest UserName="a", REALM=r') }).toEqual({ username: 'a', realm: 'r' })
    expect({ ...parseDigestHeader('DIGEST a=1') }).toEqual({ a: '1' })
  })

  it('keeps commas, equals signs and spaces inside quoted values', () => {
    expect({ ...parseDigestHeader('Digest uri="/a?b=1,c=2", username="John Smith"') }).toEqual({
      uri: '/a?b=1,c=2',
      username: 'John Smith',
    })
  })

  it('unescapes backslash escapes in quoted values', () => {
    expect(parseDigestHeader('Digest username="say \\"hi\\"", x="a\\\\b"')).toMatchObject({
      username: 'say "hi"',
      x: 'a\\b',
    })
  })

  it('tolerates extra spaces, line breaks and a trailing comma', () => {
    expect({ ...parseDigestHeader('  Digest   a = "1" ,\n  b=2 ,  c="3",  ') }).toEqual({ a: '1', b: '2', c: '3' })
  })

  it('accepts empty values', () => {
    expect({ ...parseDigestHeader('Digest a="", b=') }).toEqual({ a: '', b: '' })
  })

  it('refuses a repeated parameter: which value would count is ambiguous', () => {
    expect(parseDigestHeader('Digest nc=00000001, nc=00000002')).toBeNull()
    expect(parseDigestHeader('Digest NC=00000001, nc=00000002')).toBeNull()
  })

  it('refuses a header longer than MAX_DIGEST_HEADER without parsing it', () => {
    const long = `Digest username="admin", uri="/${'a'.repeat(MAX_DIGEST_HEADER)}"`
    expect(parseDigestHeader(long)).toBeNull()
    expect(parseDigestHeader(`Digest username="admin", uri="/${'a'.repeat(100)}"`)).not.toBeNull()
  })

  it('makes a parameter object without a prototype', () => {
    const p = parseDigestHeader('Digest __proto__="x", constructor="y"')!
    expect(Object.getPrototypeOf(p)).toBeNull()
    expect(p.__proto__).toBe('x')
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it.each([
    ['another scheme', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l'],
    ['a bearer token', 'Bearer abc'],
    ['the bare scheme', 'Digest'],
    ['no separator after the scheme', 'Digestusername="a"'],
    ['a word without a value', 'Digest garbage'],
    ['two words', 'Digest foo bar'],
    ['a missing comma', 'Digest a=1 b=2'],
    ['an unterminated quote', 'Digest username="jane'],
    ['a stray quote', 'Digest a=b"c'],
    ['trailing garbage', 'Digest a=1, !!!'],
    ['an empty string', ''],
  ])('returns null for %s', (_label, header) => {
    expect(parseDigestHeader(header)).toBeNull()
  })
})

const SECRET = 'unit-test-secret'

function makeAuth(
  options: { secret?: string; nonceTtl?: number; realm?: string; onRefused?: (r: DigestRefusal) => void } = {},
): DigestAuth {
  return new DigestAuth(
    {
      realm: options.realm ?? 'mediactl',
      nonceTtl: options.nonceTtl ?? 300,
      secret: options.secret ?? SECRET,
      onRefused: options.onRefused,
    },
    new MemoryNonceCounter(),
  )
}

describe('DigestAuth nonces', () => {
  it('issues nonces of three dot-separated parts, each different', () => {
    const auth = makeAuth()
    const a = auth.nonce()
    const b = auth.nonce()
    expect(a.split('.')).toHaveLength(3)
    expect(a).not.toBe(b)
    expect(a).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
  })

  it('measures the age of its own nonces, in seconds', () => {
    const auth = makeAuth()
    const issued = 1_700_000_000_000
    const nonce = auth.nonce(issued)
    expect(auth.nonceAge(nonce, issued)).toBe(0)
    expect(auth.nonceAge(nonce, issued + 1500)).toBe(1.5)
    expect(auth.nonceAge(nonce, issued + 301_000)).toBe(301)
  })

  it('recognises nonces from another process sharing the secret', () => {
    const nonce = makeAuth().nonce(1_000)
    expect(makeAuth().nonceAge(nonce, 3_000)).toBe(2)
  })

  it('refuses nonces signed with another secret', () => {
    const nonce = makeAuth({ secret: 'other' }).nonce()
    expect(makeAuth().nonceAge(nonce)).toBeNull()
  })

  it('refuses a nonce whose timestamp was changed', () => {
    const auth = makeAuth()
    const [issued, random, signature] = auth.nonce(1_700_000_000_000).split('.') as [string, string, string]
    const younger = (parseInt(issued, 36) + 60_000).toString(36)
    expect(auth.nonceAge(`${younger}.${random}.${signature}`)).toBeNull()
  })

  it('refuses a nonce whose random part or signature was changed', () => {
    const auth = makeAuth()
    const [issued, random, signature] = auth.nonce().split('.') as [string, string, string]
    const flip = (s: string): string => (s[0] === 'A' ? 'B' : 'A') + s.slice(1)
    expect(auth.nonceAge(`${issued}.${flip(random)}.${signature}`)).toBeNull()
    expect(auth.nonceAge(`${issued}.${random}.${flip(signature)}`)).toBeNull()
    expect(auth.nonceAge(`${issued}.${random}.${signature.slice(0, -1)}`)).toBeNull()
  })

  it.each(['', 'abc', 'a.b', 'a.b.c.d', '...'])('refuses the malformed nonce %j', (nonce) => {
    expect(makeAuth().nonceAge(nonce)).toBeNull()
  })

  it('uses a stable opaque derived from the secret', () => {
    expect(makeAuth().opaque).toBe(makeAuth().opaque)
    expect(makeAuth().opaque).not.toBe(makeAuth({ secret: 'other' }).opaque)
    expect(makeAuth().opaque).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  it('builds a challenge with realm, domain, qop, algorithm, nonce and opaque', () => {
    const auth = makeAuth({ realm: 'my realm' })
    const header = auth.challenge()
    expect(header.startsWith('Digest ')).toBe(true)
    const c = parseChallenge(header)
    expect(c).toMatchObject({ realm: 'my realm', domain: '/', qop: 'auth', algorithm: 'MD5', opaque: auth.opaque })
    expect(auth.nonceAge(c.nonce!)).not.toBeNull()
    expect(c.stale).toBeUndefined()
    expect(parseChallenge(auth.challenge(true)).stale).toBe('true')
  })
})

describe('DigestAuth.authenticate', () => {
  const USER: DigestCredentials = {
    id: 1,
    username: 'jane',
    platformId: 1,
    flags: new Set(),
    ha1: md5('jane:mediactl:the-key'),
    isActive: true,
  }
  const lookup = async (username: string): Promise<DigestCredentials | null> =>
    username === USER.username ? USER : null

  function header(
    auth: DigestAuth,
    options: { method?: string; uri?: string; nonce?: string; nc?: string; key?: string; extra?: string } = {},
  ): string {
    const method = options.method ?? 'GET'
    const uri = options.uri ?? '/platforms'
    const nonce = options.nonce ?? auth.nonce()
    const nc = options.nc ?? '00000001'
    const ha1 = md5(`jane:mediactl:${options.key ?? 'the-key'}`)
    const response = md5(`${ha1}:${nonce}:${nc}:cn:auth:${md5(`${method}:${uri}`)}`)
    return (
      `Digest username="jane", realm="mediactl", nonce="${nonce}", uri="${uri}", qop=auth, nc=${nc}, ` +
      `cnonce="cn", response="${response}", opaque="${auth.opaque}"${options.extra ?? ''}`
    )
  }

  function req(authorization: string | undefined, url = '/platforms', method = 'GET', name = 'authorization') {
    return { method, url, headers: authorization === undefined ? {} : { [name]: authorization } } as IncomingMessage
  }

  async function refusal(promise: Promise<unknown>): Promise<HttpError> {
    try {
      await promise
    } catch (error) {
      expect(error).toBeInstanceOf(HttpError)
      return error as HttpError
    }
    throw new Error('expected a refusal')
  }

  it('accepts valid credentials and returns the user', async () => {
    const auth = makeAuth()
    await expect(auth.authenticate(req(header(auth)), lookup)).resolves.toBe(USER)
  })

  it('reads credentials from a request header named WWW-Authenticate', async () => {
    const auth = makeAuth()
    const r = req(header(auth), '/platforms', 'GET', 'www-authenticate')
    await expect(auth.authenticate(r, lookup)).resolves.toBe(USER)
  })

  it('answers 401 with a challenge without credentials', async () => {
    const auth = makeAuth()
    const error = await refusal(auth.authenticate(req(undefined), lookup))
    expect(error.status).toBe(401)
    expect(error.headers['WWW-Authenticate']).toMatch(/^Digest realm="mediactl"/)
  })

  it('answers 401 for a wrong key, a wrong realm, a wrong qop, a wrong algorithm, a bad nc', async () => {
    const auth = makeAuth()
    const cases = [
      header(auth, { key: 'wrong' }),
      header(auth).replace('realm="mediactl"', 'realm="other"'),
      header(auth).replace('qop=auth', 'qop=auth-int'),
      header(auth, { extra: ', algorithm=SHA-256' }),
      header(auth, { nc: '1' }),
      header(auth).replace(/opaque="[^"]*"/, 'opaque="nope"'),
      header(auth).replace(/, cnonce="cn"/, ''),
      header(auth, { nonce: 'forged.nonce.value' }),
    ]
    for (const value of cases) {
      const error = await refusal(auth.authenticate(req(value), lookup))
      expect(error.status, value).toBe(401)
      expect(error.headers['WWW-Authenticate'], value).toContain('Digest realm="mediactl"')
    }
  })

  it('answers 401 for an unknown user', async () => {
    const auth = makeAuth()
    const error = await refusal(auth.authenticate(req(header(auth).replace('"jane"', '"nobody"')), lookup))
    expect(error.status).toBe(401)
    expect(error.message).toBe('Wrong username or API key.')
  })

  it('answers 400 when uri does not name the request target', async () => {
    const auth = makeAuth()
    const error = await refusal(auth.authenticate(req(header(auth, { uri: '/other' }), '/platforms'), lookup))
    expect(error.status).toBe(400)
  })

  it('refuses a replayed nonce count or one too far below the highest, accepts reordered ones', async () => {
    const auth = makeAuth()
    const nonce = auth.nonce()
    const nc = (n: number): string => n.toString(16).padStart(8, '0')
    await expect(auth.authenticate(req(header(auth, { nonce, nc: nc(2) })), lookup)).resolves.toBe(USER)
    const replay = await refusal(auth.authenticate(req(header(auth, { nonce, nc: nc(2) })), lookup))
    expect(replay.status).toBe(401)
    expect(replay.message).toContain('Replayed')
    // Concurrent requests on one nonce arrive out of order: a lower, unused count is fine once.
    await expect(auth.authenticate(req(header(auth, { nonce, nc: nc(1) })), lookup)).resolves.toBe(USER)
    expect((await refusal(auth.authenticate(req(header(auth, { nonce, nc: nc(1) })), lookup))).status).toBe(401)
    await expect(auth.authenticate(req(header(auth, { nonce, nc: nc(200) })), lookup)).resolves.toBe(USER)
    const tooOld = await refusal(auth.authenticate(req(header(auth, { nonce, nc: nc(100) })), lookup))
    expect(tooOld.status).toBe(401)
  })

  it('answers 401 with stale=true for an expired nonce with a valid response', async () => {
    const auth = makeAuth({ nonceTtl: 60 })
    const nonce = auth.nonce(Date.now() - 61_000)
    const error = await refusal(auth.authenticate(req(header(auth, { nonce })), lookup))
    expect(error.status).toBe(401)
    expect(parseChallenge(error.headers['WWW-Authenticate']!).stale).toBe('true')
  })

  it('does not say stale for an expired nonce with a wrong key', async () => {
    const auth = makeAuth({ nonceTtl: 60 })
    const nonce = auth.nonce(Date.now() - 61_000)
    const error = await refusal(auth.authenticate(req(header(auth, { nonce, key: 'wrong' })), lookup))
    expect(error.status).toBe(401)
    expect(error.headers['WWW-Authenticate']).not.toContain('stale')
  })

  it('refuses duplicated parameters, a missing opaque and an oversized username with 401', async () => {
    const auth = makeAuth()
    const cases = [
      header(auth, { extra: ', nc=00000002' }),
      header(auth, { extra: ', username="jane"' }),
      header(auth).replace(/, opaque="[^"]*"/, ''),
      header(auth).replace('username="jane"', `username="${'j'.repeat(300)}"`),
      header(auth, { extra: `, padding="${'x'.repeat(MAX_DIGEST_HEADER)}"` }),
    ]
    for (const value of cases) {
      const error = await refusal(auth.authenticate(req(value), lookup))
      expect(error.status, value.slice(0, 120)).toBe(401)
    }
  })

  it('reports each refused attempt with the address and username, never the response hash', async () => {
    const refusals: DigestRefusal[] = []
    const auth = makeAuth({ nonceTtl: 60, onRefused: (r) => refusals.push(r) })
    const withSocket = (authorization: string | undefined): IncomingMessage =>
      Object.assign(req(authorization), { socket: { remoteAddress: '127.0.0.9' } }) as IncomingMessage
    const wrong = header(auth, { key: 'wrong' })
    await refusal(auth.authenticate(withSocket(wrong), lookup))
    await refusal(auth.authenticate(withSocket('Digest garbage'), lookup))
    // Neither the first, credential-less request of every client nor a renewed nonce is an attack.
    await refusal(auth.authenticate(withSocket(undefined), lookup))
    await refusal(auth.authenticate(withSocket(header(auth, { nonce: auth.nonce(Date.now() - 61_000) })), lookup))
    await expect(auth.authenticate(withSocket(header(auth)), lookup)).resolves.toBe(USER)
    expect(refusals).toEqual([
      { ip: '127.0.0.9', username: 'jane', reason: 'Wrong username or API key.' },
      {
        ip: '127.0.0.9',
        username: undefined,
        reason: 'Malformed Authorization header: expected HTTP Digest credentials.',
      },
    ])
    const response = /response="([^"]+)"/.exec(wrong)![1]!
    expect(JSON.stringify(refusals)).not.toContain(response)
  })

  it('refuses an inactive user with 401', async () => {
    const auth = makeAuth()
    const inactive = async (): Promise<DigestCredentials> => ({ ...USER, isActive: false })
    const error = await refusal(auth.authenticate(req(header(auth)), inactive))
    expect(error.status).toBe(401)
  })
})
