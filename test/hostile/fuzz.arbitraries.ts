import fc from 'fast-check'

/**
 * Generators of the HTTP fuzz (fuzz.test.ts). A generated case is a compact description of
 * requests (no byte buffers, no real slugs): real values are picked at run time by index from
 * the objects that exist then, and bodies are rendered from specs (random bytes come from a
 * seed), so a failing case prints short and replays the same with the same fast-check seed.
 */

/** Who signs a request (when it is signed at all). */
export type Actor = 'fuzzer' | 'admin'

/** What a path parameter is filled with. */
export type ParamSpec =
  /** A real value for this parameter's name (slugs, usernames, ...): `pick` modulo how many exist. */
  | { kind: 'real'; pick: number }
  /** Any text, percent-encoded (UTF-8) into the path. */
  | { kind: 'text'; value: string }
  /** Written into the path as is: encoded controls, traversal, invalid percent-encoding, raw UTF-8. */
  | { kind: 'raw'; value: string }
  /** A very long value: `unit` repeated, percent-encoded. */
  | { kind: 'long'; unit: string; times: number }

/** Where a request goes. */
export type PathSpec =
  /** A route of the application (index into its route table) with its `:params` filled. */
  | { kind: 'route'; route: number; params: ParamSpec[]; tail: string }
  /** A route chosen by its pattern (the upload generators aim at those). */
  | { kind: 'pattern'; pattern: string; params: ParamSpec[] }
  /** A request target that matches nothing sensible. */
  | { kind: 'junk'; value: string }

/** A token in a query string or an `Upload-Token` header. */
export type TokenSpec =
  /** One of the real tokens of the run (upload links, media, resource and view tokens, expired ones). */
  | { kind: 'real'; pick: number }
  /** A real token cut or with a character changed. */
  | { kind: 'mangled'; pick: number; at: number; cut: boolean }
  | { kind: 'garbage'; value: string }

export type QueryItem =
  | { kind: 'token'; token: TokenSpec }
  /** A key and value, percent-encoded. */
  | { kind: 'pair'; key: string; value: string }
  /** Written as is. */
  | { kind: 'raw'; value: string }

export type HeaderSpec = { kind: 'header'; name: string; value: string } | { kind: 'upload-token'; token: TokenSpec }

/** The `Host` header. */
export type HostSpec =
  | 'normal'
  | 'missing'
  | 'twice'
  /** The domain of a real media (the portal's host mapping), `pick` modulo their count. */
  | { media: number }
  | { literal: string }

/** A form value: literal, or a huge one (`unit` repeated). */
export type ValueSpec = string | { unit: string; times: number }

/** File contents: literal text, or seeded random bytes behind a signature. */
export type DataSpec =
  { kind: 'text'; value: string } | { kind: 'random'; seed: number; size: number; prefix: Signature }

export type Signature = 'none' | 'pdf' | 'png' | 'mp4' | 'nul' | 'xml' | 'vtt'

export type PartSpec =
  | { kind: 'field'; name: string; value: ValueSpec }
  | { kind: 'file'; field: string; filename: string; star: boolean; type: string; data: DataSpec }
  /** A part whose headers are garbage. */
  | { kind: 'junk'; headers: string; value: string }

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'urlencoded'; fields: { name: string; value: ValueSpec }[]; junk: string }
  | {
      kind: 'multipart'
      parts: PartSpec[]
      /** How the body ends: properly, without its closing boundary, or cut at `cut` (a fraction) of its length. */
      ending: 'closed' | 'unclosed' | 'cut'
      cut: number
      /** The body uses another boundary than the one its Content-Type names. */
      wrongBoundary: boolean
      boundary: string
      preamble: string
      /** Bare `\n` line ends instead of `\r\n`. */
      bareLf: boolean
    }
  | { kind: 'raw'; value: string }
  | { kind: 'bytes'; data: DataSpec }

/** The Content-Type header: the body's own (`auto`), or an odd one. */
export type ContentTypeSpec =
  | 'auto'
  | 'missing'
  | 'no-boundary'
  | 'empty-boundary'
  | 'two-boundaries'
  | 'quoted-boundary'
  | 'uppercase'
  | 'twice'
  | { literal: string }

/** How the body is framed on the wire. */
export type Framing =
  | { kind: 'exact' }
  /** Content-Length smaller than the body: the rest is sent anyway (it reads as a next request). */
  | { kind: 'shorter'; by: number }
  /** Content-Length larger than the body: the client waits a bounded time, then cuts the connection. */
  | { kind: 'longer'; by: number }
  | { kind: 'chunked' }
  | { kind: 'bad-chunked'; junk: string }
  /** A body and no Content-Length at all. */
  | { kind: 'no-length' }
  /** Both Content-Length and Transfer-Encoding (request smuggling shape). */
  | { kind: 'both' }

export type AuthEdit =
  | { kind: 'set'; field: string; value: string; quoted: boolean }
  | { kind: 'duplicate'; field: string }
  | { kind: 'drop'; field: string }
  | { kind: 'oversize'; field: string; length: number }
  | { kind: 'append'; junk: string }

export type AuthSpec =
  /** Correct Digest credentials for the exact method and target. */
  | { kind: 'valid' }
  | { kind: 'none' }
  /** Correct credentials computed for another target. */
  | { kind: 'wrong-uri' }
  /** Correct credentials in the `WWW-Authenticate` request header (the spec's example does that). */
  | { kind: 'www-authenticate' }
  /** Correct credentials sent twice. */
  | { kind: 'twice' }
  /** Correct credentials, then edited: random, duplicated, missing or oversized fields. */
  | { kind: 'mangled'; edits: AuthEdit[] }
  | { kind: 'literal'; value: string }

export type MethodSpec = { kind: 'route' } | { kind: 'literal'; value: string }

export interface RequestSpec {
  actor: Actor
  auth: AuthSpec
  method: MethodSpec
  path: PathSpec
  query: QueryItem[]
  headers: HeaderSpec[]
  host: HostSpec
  contentType: ContentTypeSpec
  body: BodySpec
  framing: Framing
}

/** One PATCH of a tus scenario. */
export interface TusPatch {
  /** Bytes sent from the offset the server holds. */
  size: number
  offset: 'right' | 'zero' | 'ahead' | 'behind' | 'junk' | 'missing'
  contentType: 'right' | 'wrong' | 'missing'
  resumable: 'right' | 'wrong' | 'missing'
  framing: Framing
}

/** A resumable upload (tus): creation, PATCHes (some odd), then HEAD, termination or nothing. */
export interface TusScenario {
  kind: 'tus'
  /** The upload token: the fuzzer's own link (or a real token of another kind), or garbage. */
  token: TokenSpec
  length: number
  /** Upload-Length as sent: the true length, or something odd. */
  lengthHeader: 'right' | 'junk' | 'missing' | 'negative' | 'huge'
  metadata: string
  /** Bytes sent with the creation (creation-with-upload), 0 for none. */
  withCreation: number
  patches: TusPatch[]
  end: 'head' | 'delete' | 'none'
  seed: number
}

/** One piece of a chunked upload (`chunk`, `chunks` fields of POST /files). */
export interface ChunkPiece {
  /** The index sent: usually the next one. */
  chunk: 'next' | 'same' | 'skip' | { literal: string }
  size: number
  /** What goes wrong with it: nothing, a body without its closing boundary, a shorter Content-Length. */
  mutation: 'none' | 'unclosed' | 'shorter'
}

export interface ChunkedScenario {
  kind: 'chunked'
  actor: Actor
  name: string
  chunks: number
  pieces: ChunkPiece[]
  seed: number
}

export type Step = { kind: 'request'; request: RequestSpec } | TusScenario | ChunkedScenario

/** The routes the fuzz aims at: the application's route table. */
export interface RouteShape {
  method: string
  path: string
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Values that broke parsers and queries elsewhere, written into a path as is. */
const RAW_PARAMS = [
  '%00',
  'a%00b',
  '%ff',
  '%FF%FE',
  '..%2f',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2e%2e%2f',
  '..',
  '.',
  '%E0%A4%A',
  '%E0%A4',
  '%',
  '%zz',
  '%C0%AF',
  '%ED%A0%80',
  '%EF%BF%BF',
  '%0d%0aX-Injected:%201',
  '%01%1f%7f',
  '%20',
  '+',
  ';x=1',
  ',',
  '~',
  '%2F',
  '%5c..%5c',
  '%u0041',
  'é',
  '😀',
  '-1',
  '0',
  '99999999999999999999999999',
  '1e308',
  'null',
  '__proto__',
  'constructor',
  '%3C!%5BCDATA%5B%5D%5D%3E',
  ']]%3E',
  'upload_links',
  'source',
  'master.m3u8',
  'custom',
  'tus',
]

const LONG_UNITS = ['a', 'é', '%00', '../', '😀', '-']

const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'binary-ascii', maxLength }),
  )

const paramSpec: fc.Arbitrary<ParamSpec> = fc.oneof(
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('real' as const), pick: fc.nat(1000) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('raw' as const), value: fc.constantFrom(...RAW_PARAMS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('text' as const), value: anyText(40) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('long' as const),
      unit: fc.constantFrom(...LONG_UNITS),
      // Up to ~24 KB once encoded: beyond the request head limit (431) at the top.
      times: fc.oneof(fc.integer({ min: 50, max: 600 }), fc.integer({ min: 2000, max: 6000 })),
    }),
  },
)

const paramsArb = fc.array(paramSpec, { minLength: 4, maxLength: 4 })

const JUNK_TARGETS = [
  '*',
  '//',
  '/..',
  '/../../etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  'http://127.0.0.1/',
  'http://evil.example/files',
  '/files/',
  '/files//x',
  '/file/',
  '/./files',
  '/?',
  '/#frag',
  '/upload/tus/',
  '/upload/tus/../files',
  '/portal/',
  '/embed/.js',
  '/%00',
  '/\\files',
  '/files?&&&',
  '/' + 'x'.repeat(300),
]

const tokenSpec: fc.Arbitrary<TokenSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('real' as const), pick: fc.nat(1000) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('mangled' as const),
      pick: fc.nat(1000),
      at: fc.nat(1000),
      cut: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      value: fc.oneof(
        anyText(60),
        fc.constantFrom('', 'a.b.c', 'a.b', '....', 'eyJhbGciOiJub25lIn0.e30.', '%E0%A4%A', 'x'.repeat(5000)),
      ),
    }),
  },
)

const queryItem: fc.Arbitrary<QueryItem> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('token' as const), token: tokenSpec }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('pair' as const),
      key: fc.constantFrom('with-token', 'name', 'range', 'offset', 'limit', 'page', 'v', 'q', 'sort', 'token', 'file'),
      value: fc.oneof(
        fc.constantFrom('1', '0', '', 'yes', '-1', '1e9', 'entities=0-5', 'bytes=0-', '99999999999999999999'),
        anyText(30),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      value: fc.constantFrom(
        'with-token=1',
        'with-token',
        '&&&',
        '=',
        '%',
        'a[b][c]=1',
        'a[]=1&a[]=2',
        '__proto__[x]=1',
        'constructor[prototype][x]=1',
        'token',
        'token=',
        'token=%E0%A4%A',
        'token=a&token=b',
        '%00=%00',
        'name=%ff',
        'range=entities%3D0-9',
        'a=' + 'b'.repeat(3000),
      ),
    }),
  },
)

const RANGES = [
  'entities=0-10',
  'entities=5-',
  'entities=0-0',
  'entities=-5',
  'entities=10-2',
  'entities=99999999999999999999-',
  'entities=0-0,5-9',
  ' entities = 1 - 2 ',
  'entities=a-b',
  'entities=',
  'entities=1000000-1000001',
  'bytes=0-0',
  'bytes=0-',
  'bytes=-1',
  'bytes=-0',
  'bytes=100-50',
  'bytes=99999999999999999999-',
  'bytes=0-1,2-3',
  'bytes=1-2-3',
  'Bytes=0-5',
  'bytes=',
  'bytes=-',
  'bytes=2-',
  'bytes=0-' + '9'.repeat(400),
  'pages=1-2',
  'garbage',
  '',
]

/** Header values: mostly printable (controls only make node:http refuse the whole request, 400). */
const headerText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength }) }, { weight: 1, arbitrary: anyText(maxLength) })

const headerValue = (values: string[]): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: headerText(30) })

/** A header of the kinds the server reads, with odd values. */
const headerSpec: fc.Arbitrary<HeaderSpec> = fc.oneof(
  ...(
    [
      // Range three times: lists and media answers read it, it deserves the weight.
      ['Range', RANGES],
      ['Range', RANGES],
      ['Range', RANGES],
      ['If-Range', ['"x"', 'W/"x"', 'Thu, 01 Jan 1970 00:00:00 GMT', '*', '']],
      ['If-None-Match', ['*', '"x"', 'W/"x", "y"', '""', ',,,']],
      ['Content-Range', ['bytes 0-99/100', 'bytes */100', 'entities 0-1/2', 'bytes 0-0/0', 'bytes 5-1/3', 'junk']],
      ['Tus-Resumable', ['1.0.0', '0.2.2', '', '1.0.0, 1.0.0', '2']],
      ['Upload-Offset', ['0', '-1', '1e3', '99999999999999999999', 'abc', ' 0', '']],
      ['Upload-Length', ['0', '1', '-1', '10', '99999999999999999999', 'x', '']],
      [
        'Upload-Metadata',
        [
          'filename ' + Buffer.from('a.txt').toString('base64'),
          'filename',
          'filename !!!',
          'a YQ==,a YQ==',
          'filename ' + Buffer.from('../../etc/passwd').toString('base64'),
          'filename ' + Buffer.from('a\0b]]>').toString('base64'),
          ',',
        ],
      ],
      ['Upload-Defer-Length', ['1', '0', 'x']],
      ['Upload-Concat', ['partial', 'final;/upload/tus/a /upload/tus/b', 'x']],
      ['X-HTTP-Method-Override', ['PATCH', 'DELETE', 'HEAD']],
      [
        'Accept',
        ['application/xml', 'text/html', '*/*', 'application/json', 'image/*', 'text/plain', 'application/xml;q=0', ''],
      ],
      ['Accept-Encoding', ['gzip', 'br', 'identity;q=0', 'gzip;q=2', '*', '']],
      ['Origin', ['http://evil.example', 'null', '']],
      ['X-Request-Id', ['abc', 'x'.repeat(100), 'a b', '../x']],
      ['Expect', ['100-continue', 'junk']],
      ['X-Forwarded-For', ['1.2.3.4', 'junk', '']],
      ['Cookie', ['a=b', '=;;=', '']],
    ] as [string, string[]][]
  ).map(([name, values]) =>
    fc.record({ kind: fc.constant('header' as const), name: fc.constant(name), value: headerValue(values) }),
  ),
  fc.record({ kind: fc.constant('upload-token' as const), token: tokenSpec }),
  // Unknown names, names with characters no header may hold, values with obs-text and controls.
  fc.record({
    kind: fc.constant('header' as const),
    name: fc.constantFrom('X-Junk', 'X-' + 'a'.repeat(200), 'Bad Header', 'X-Ünïcode', 'Content-Length', ':path'),
    value: fc.oneof(headerText(40), fc.constantFrom('\u00ff\u0080', '\u0000', '\u007f', 'x'.repeat(9000))),
  }),
)

const hostSpec: fc.Arbitrary<HostSpec> = fc.oneof(
  { weight: 20, arbitrary: fc.constant('normal' as const) },
  { weight: 1, arbitrary: fc.constant('missing' as const) },
  { weight: 1, arbitrary: fc.constant('twice' as const) },
  { weight: 2, arbitrary: fc.record({ media: fc.nat(100) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      literal: fc.constantFrom(
        '',
        'localhost',
        '[::1]:80',
        'x'.repeat(300),
        'a..b',
        '%00',
        'évil.example',
        '127.0.0.1:0',
      ),
    }),
  },
)

/** Form field names: those the handlers read, and odd ones. */
const FIELD_NAMES = [
  'name',
  'title',
  'description',
  'subtitle',
  'visibility',
  'email',
  'contact_email',
  'domain',
  'domain_name',
  'file',
  'folder',
  'chunk',
  'chunks',
  'parent_stream',
  'type',
  'file_type',
  'default_value',
  'is_protected',
  'is_online',
  'logo',
  'logo_position',
  'logo_url',
  'logo_width',
  'logo_top',
  'logo_left',
  'logo_height',
  'size',
  'subtitle_language',
  'language',
  'metadata[x]',
  'metadata[]',
  'role',
  'user',
  'group',
  'stream',
  'media',
  'resource',
  'username',
  'password',
  'profile',
  'is_active',
  'platform',
  'quota',
  'max_users',
  'max_space',
  'width',
  'height',
  'player_theme',
  'player_behavior',
  'theme',
  'skin',
  'settings[autoplay]',
  'permission[File][create]',
  'permission[Media][edit]',
  'published_at',
  'country',
  'telephone',
  'zipcode',
  '__proto__',
  '__proto__[polluted]',
  'constructor[prototype][x]',
  'a[][]',
  'a[b',
  '',
  '[]',
]

/** Values that broke XML answers, paths and numbers elsewhere. */
const FIELD_VALUES = [
  '',
  ' ',
  'x',
  '0',
  '1',
  '-1',
  '1e309',
  '99999999999999999999999',
  'visible',
  'hidden',
  'draft',
  'video',
  'varchar',
  'fr',
  'api',
  ']]>',
  '<![CDATA[x]]>]]>',
  '<?xml version="1.0"?><a>&xxe;</a>',
  '../../etc/passwd',
  'a\u0000b',
  '\u0001\u0008\u000b\u000c\u001f',
  '\uffff\ufffe',
  'a@b',
  'é😀',
  'true',
  'null',
]

const valueSpec: fc.Arbitrary<ValueSpec> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELD_VALUES) },
  { weight: 3, arbitrary: anyText(40) },
  {
    weight: 1,
    // Around the body limit of the test server (64 KiB): just under it, and over.
    arbitrary: fc.record({
      unit: fc.constantFrom('a', 'é', ']]>', '\u0000'),
      times: fc.integer({ min: 10_000, max: 80_000 }),
    }),
  },
)

const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: anyText(20) },
)

const dataSpec: fc.Arbitrary<DataSpec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('random' as const),
      seed: fc.nat(),
      size: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: 0, max: 3000 }) },
        // Beyond the test server's largest file (256 KiB), and just around it.
        { weight: 1, arbitrary: fc.integer({ min: 260_000, max: 300_000 }) },
      ),
      prefix: fc.constantFrom<Signature>('none', 'pdf', 'png', 'mp4', 'nul', 'xml', 'vtt'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      value: fc.oneof(
        fc.constantFrom(
          'WEBVTT\n\n00:01.000 --> 00:02.000\n]]>\n',
          '1\n00:00:01,000 --> 00:00:02,000\n<b>x</b>\n',
          '<?xml version="1.0"?><a><![CDATA[ ]]> ]]></a>',
          '\u0000\u0000\u0000',
          '../../../etc/passwd',
          '{"a":',
          '',
        ),
        anyText(200),
      ),
    }),
  },
)

const FILENAMES = [
  'file.bin',
  'clip.mp4',
  'paper.pdf',
  'sub.fr.vtt',
  'logo.png',
  '../../etc/passwd',
  '..',
  '/',
  'a\u0000b.txt',
  ']]>.txt',
  'é😀.mp4',
  '',
  'x'.repeat(300) + '.mp4',
  'CON',
  '.hidden',
  'list.m3u8',
  'a"b.txt',
  'a\\b.txt',
]

const FILE_FIELDS = ['path', 'file', 'file[path]', 'logo', 'subtitle', 'snapshot', 'upload', 'path[]', '']

const partSpec: fc.Arbitrary<PartSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('field' as const), name: fieldName, value: valueSpec }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('file' as const),
      field: fc.constantFrom(...FILE_FIELDS),
      filename: fc.oneof(fc.constantFrom(...FILENAMES), anyText(30)),
      star: fc.boolean(),
      type: fc.constantFrom('application/octet-stream', 'video/mp4', 'image/png', 'text/vtt', '', 'junk', 'text/xml'),
      data: dataSpec,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('junk' as const),
      headers: fc.constantFrom(
        'Content-Disposition: form-data',
        'Content-Disposition: form-data; name=',
        'Content-Disposition: attachment; name="x"',
        'Content-Disposition: form-data; name="a"; name="b"',
        'Content-Disposition: form-data; name="path"; filename*=UTF-8\'\'%E0%A4%A',
        'Content-Disposition: form-data; name="path"; filename="a"; filename="b"',
        'X: y',
        ':',
        'Content-Disposition: ' + 'x'.repeat(20_000),
      ),
      value: anyText(50),
    }),
  },
)

const multipartBody = (parts: fc.Arbitrary<PartSpec[]>): fc.Arbitrary<BodySpec> =>
  fc.record({
    kind: fc.constant('multipart' as const),
    parts,
    ending: fc.constantFrom<('closed' | 'unclosed' | 'cut')[]>('closed', 'closed', 'closed', 'unclosed', 'cut'),
    cut: fc.double({ min: 0, max: 1, noNaN: true }),
    wrongBoundary: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    boundary: fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^[0-9a-f]{16}$/).map((hex) => `----fuzz${hex}`) },
      { weight: 1, arbitrary: fc.constantFrom('a', 'x y', '"q"', 'b'.repeat(80), '--', 'é', '===') },
    ),
    preamble: fc.constantFrom('', '', '', 'preamble\r\n', '\r\n\r\n'),
    bareLf: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })

const RAW_BODIES = [
  '<?xml version="1.0"?><a>]]></a>',
  '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
  '<a>\u0000\u0001\u0002</a>',
  '{"name":"x","__proto__":{"a":1}}',
  '%zz=%E0%A4%A&&&==',
  'name=%00&name=%ff&name[]=x',
  'a'.repeat(70_000),
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n',
  '\r\n\r\n',
]

const bodySpec: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('urlencoded' as const),
      fields: fc.array(fc.record({ name: fieldName, value: valueSpec }), { maxLength: 6 }),
      junk: fc.constantFrom('', '', '', '&&', '%zz', '%E0%A4%A', '=x', 'a[b][c][d][e][f]=1', '&%00=%00'),
    }),
  },
  { weight: 4, arbitrary: multipartBody(fc.array(partSpec, { maxLength: 5 })) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      value: fc.oneof(fc.constantFrom(...RAW_BODIES), anyText(200)),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bytes' as const), data: dataSpec }) },
)

const contentTypeSpec: fc.Arbitrary<ContentTypeSpec> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('auto' as const) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<ContentTypeSpec>(
      'missing',
      'no-boundary',
      'empty-boundary',
      'two-boundaries',
      'quoted-boundary',
      'uppercase',
      'twice',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      literal: fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=latin1',
        'multipart/form-data; boundary=nothere',
        'multipart/mixed; boundary=x',
        'application/offset+octet-stream',
        'application/xml',
        'text/xml; charset=utf-16',
        'application/json',
        'text/plain',
        '',
        ';;;',
        'multipart/form-data; boundary=' + 'z'.repeat(2000),
      ),
    }),
  },
)

const framingSpec: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ kind: 'exact' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('shorter' as const), by: fc.integer({ min: 1, max: 5000 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('longer' as const), by: fc.integer({ min: 1, max: 100_000 }) }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'chunked' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bad-chunked' as const),
      junk: fc.constantFrom('zz', '-1', 'ffffffffffffffffff', '1;ext=' + 'x'.repeat(100), ''),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'no-length' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'both' as const }) },
)

const DIGEST_FIELDS = ['username', 'realm', 'nonce', 'uri', 'qop', 'nc', 'cnonce', 'response', 'opaque', 'algorithm']

const authEdit: fc.Arbitrary<AuthEdit> = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    field: fc.oneof(fc.constantFrom(...DIGEST_FIELDS), fc.constantFrom('stale', 'userhash', 'x', 'USERNAME')),
    value: fc.oneof(
      fc.constantFrom(
        '',
        'admin',
        'fuzzer',
        'MD5-sess',
        'SHA-256',
        'auth-int',
        'ffffffff',
        '00000000',
        'a"b',
        'a\\',
        '\u00e9',
      ),
      anyText(30),
    ),
    quoted: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('duplicate' as const), field: fc.constantFrom(...DIGEST_FIELDS) }),
  fc.record({ kind: fc.constant('drop' as const), field: fc.constantFrom(...DIGEST_FIELDS) }),
  fc.record({
    kind: fc.constant('oversize' as const),
    field: fc.constantFrom(...DIGEST_FIELDS),
    length: fc.oneof(fc.integer({ min: 300, max: 2000 }), fc.integer({ min: 8000, max: 20_000 })),
  }),
  fc.record({
    kind: fc.constant('append' as const),
    junk: fc.constantFrom(', foo', ',,,', ' "unterminated', ', a=', ', =b', ', x="y', '\u0000', ' Digest a=b'),
  }),
)

const authSpec: fc.Arbitrary<AuthSpec> = fc.oneof(
  // Most requests reach the handlers, not only the 401 path.
  { weight: 16, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrong-uri' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'www-authenticate' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'twice' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mangled' as const),
      edits: fc.array(authEdit, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('literal' as const),
      value: fc.oneof(
        fc.constantFrom(
          'Basic YWRtaW46eA==',
          'Digest',
          'Digest ',
          'Digest username=',
          'Bearer x',
          'digest username="admin"',
          'Digest ' + 'a=b, '.repeat(3000),
          'Digest username="admin", username="fuzzer"',
        ),
        anyText(60),
      ),
    }),
  },
)

/** Methods: the route's own mostly, else every method the routes know, and junk tokens. */
const methodSpec: fc.Arbitrary<MethodSpec> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'route' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('literal' as const),
      value: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('literal' as const),
      value: fc.constantFrom('FOO', 'get', 'PROPFIND', 'TRACE', 'MKCOL', 'PURGE', 'SEARCH', 'G\u00c9T', 'X'.repeat(40)),
    }),
  },
)

const actorSpec: fc.Arbitrary<Actor> = fc.constantFrom<Actor>('fuzzer', 'fuzzer', 'admin')

/** Any request to any route. */
function anyRequest(routes: readonly RouteShape[]): fc.Arbitrary<RequestSpec> {
  const path: fc.Arbitrary<PathSpec> = fc.oneof(
    {
      weight: 20,
      arbitrary: fc.record({
        kind: fc.constant('route' as const),
        route: fc.integer({ min: 0, max: routes.length - 1 }),
        params: paramsArb,
        tail: fc.oneof(
          { weight: 12, arbitrary: fc.constant('') },
          { weight: 2, arbitrary: fc.constantFrom('/', '/extra', '//', '/..', '.json', '%00') },
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('junk' as const), value: fc.constantFrom(...JUNK_TARGETS) }),
    },
  )
  return fc.record({
    actor: actorSpec,
    auth: authSpec,
    method: methodSpec,
    path,
    query: fc.oneof(
      { weight: 3, arbitrary: fc.constant<QueryItem[]>([]) },
      { weight: 2, arbitrary: fc.array(queryItem, { maxLength: 3 }) },
    ),
    headers: fc.array(headerSpec, { maxLength: 4 }),
    host: hostSpec,
    contentType: contentTypeSpec,
    body: bodySpec,
    framing: framingSpec,
  })
}

/** Routes that read multipart bodies with files, or forms (the upload generators aim at them). */
const UPLOAD_TARGETS: { method: string; pattern: string; token?: boolean }[] = [
  { method: 'POST', pattern: '/files' },
  { method: 'POST', pattern: '/files' },
  { method: 'POST', pattern: '/files/:directory' },
  { method: 'POST', pattern: '/upload/json', token: true },
  { method: 'POST', pattern: '/upload/html', token: true },
  { method: 'POST', pattern: '/file/:file/subtitles' },
  { method: 'POST', pattern: '/file/:file/snapshots' },
  { method: 'POST', pattern: '/file/:file/studio/insertlogo' },
  { method: 'PUT', pattern: '/file/:file' },
  { method: 'POST', pattern: '/platforms' },
  { method: 'POST', pattern: '/platform/:platform/users' },
  { method: 'POST', pattern: '/platform/:platform/metadata' },
  { method: 'POST', pattern: '/media/:media/streams' },
  { method: 'POST', pattern: '/media/:media/channels' },
  { method: 'POST', pattern: '/stream/:stream/resources' },
  { method: 'POST', pattern: '/resource/:resource/widgets' },
  { method: 'POST', pattern: '/files/upload_links' },
  { method: 'POST', pattern: '/extension/widget/recorder/:code/upload_links' },
]

/** A multipart upload (or form) to a route that reads one: mostly well formed, some cut, mis-bounded or mis-framed. */
function uploadRequest(): fc.Arbitrary<RequestSpec> {
  const file: fc.Arbitrary<PartSpec> = fc.record({
    kind: fc.constant('file' as const),
    field: fc.constantFrom('path', 'path', 'file', 'file[path]', 'logo', 'subtitle', 'snapshot'),
    filename: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...FILENAMES) }, { weight: 1, arbitrary: anyText(30) }),
    star: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    type: fc.constantFrom('application/octet-stream', 'video/mp4', 'text/vtt', 'image/png'),
    data: dataSpec,
  })
  const parts = fc
    .tuple(fc.array(partSpec, { maxLength: 3 }), file, fc.array(partSpec, { maxLength: 2 }))
    .map(([before, part, after]) => [...before, part, ...after])
  return fc
    .record({
      target: fc.constantFrom(...UPLOAD_TARGETS),
      params: paramsArb,
      token: tokenSpec,
      actor: actorSpec,
      auth: fc.oneof(
        { weight: 12, arbitrary: fc.constant({ kind: 'valid' as const }) },
        { weight: 1, arbitrary: authSpec },
      ),
      body: multipartBody(parts),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant('auto' as const) },
        { weight: 1, arbitrary: contentTypeSpec },
      ),
      framing: fc.oneof(
        { weight: 6, arbitrary: fc.constant({ kind: 'exact' as const }) },
        { weight: 2, arbitrary: framingSpec },
      ),
      headers: fc.array(headerSpec, { maxLength: 2 }),
    })
    .map(({ target, params, token, actor, auth, body, contentType, framing, headers }): RequestSpec => ({
      actor,
      auth: target.token ? { kind: 'none' } : auth,
      method: { kind: 'literal', value: target.method },
      path: { kind: 'pattern', pattern: target.pattern, params },
      query: target.token ? [{ kind: 'token', token }] : [],
      headers,
      host: 'normal',
      contentType,
      body,
      framing,
    }))
}

const tusPatch: fc.Arbitrary<TusPatch> = fc.record({
  size: fc.integer({ min: 0, max: 4000 }),
  offset: fc.constantFrom<TusPatch['offset'][]>(
    'right',
    'right',
    'right',
    'right',
    'zero',
    'ahead',
    'behind',
    'junk',
    'missing',
  ),
  contentType: fc.constantFrom<TusPatch['contentType'][]>('right', 'right', 'right', 'right', 'wrong', 'missing'),
  resumable: fc.constantFrom<TusPatch['resumable'][]>('right', 'right', 'right', 'right', 'wrong', 'missing'),
  framing: fc.oneof(
    { weight: 6, arbitrary: fc.constant({ kind: 'exact' as const }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('longer' as const), by: fc.integer({ min: 1, max: 10_000 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('shorter' as const), by: fc.integer({ min: 1, max: 100 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'chunked' as const }) },
  ),
})

const tusScenario: fc.Arbitrary<TusScenario> = fc.record({
  kind: fc.constant('tus' as const),
  token: fc.oneof(
    { weight: 8, arbitrary: fc.constant({ kind: 'real' as const, pick: 0 }) },
    { weight: 2, arbitrary: tokenSpec },
  ),
  length: fc.oneof(fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 260_000, max: 270_000 })),
  lengthHeader: fc.constantFrom<TusScenario['lengthHeader'][]>(
    'right',
    'right',
    'right',
    'right',
    'junk',
    'missing',
    'negative',
    'huge',
  ),
  metadata: fc.constantFrom(
    '',
    'filename ' + Buffer.from('tus.bin').toString('base64'),
    'filename ' + Buffer.from('../../x]]>.mp4').toString('base64'),
    'filename ' + Buffer.from('a\0b').toString('base64'),
    'filename',
    'filename !!',
    'a YQ==,a YQ==',
    'name ' + Buffer.from('é😀.txt').toString('base64'),
  ),
  withCreation: fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 2000 }) },
  ),
  patches: fc.array(tusPatch, { minLength: 0, maxLength: 4 }),
  end: fc.constantFrom<TusScenario['end'][]>('head', 'head', 'delete', 'none'),
  seed: fc.nat(),
})

const chunkedScenario: fc.Arbitrary<ChunkedScenario> = fc.record({
  kind: fc.constant('chunked' as const),
  actor: actorSpec,
  name: fc.constantFrom('pieces.bin', 'pieces.mp4', 'é😀.bin', '../pieces', 'x'.repeat(300)),
  chunks: fc.integer({ min: 1, max: 4 }),
  pieces: fc.array(
    fc.record({
      chunk: fc.oneof(
        { weight: 8, arbitrary: fc.constant('next' as const) },
        { weight: 1, arbitrary: fc.constantFrom('same' as const, 'skip' as const) },
        { weight: 1, arbitrary: fc.record({ literal: fc.constantFrom('-1', '1e3', 'x', '', '999999999', '0x1') }) },
      ),
      size: fc.integer({ min: 0, max: 3000 }),
      mutation: fc.constantFrom<ChunkPiece['mutation'][]>('none', 'none', 'none', 'none', 'unclosed', 'shorter'),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  seed: fc.nat(),
})

/**
 * A read of a real object (every GET route, its parameters real): lists with odd
 * `Range: entities=`, media with odd `Range: bytes=` and validators, with or without tokens.
 */
function readRequest(routes: readonly RouteShape[]): fc.Arbitrary<RequestSpec> {
  const reads = routes.filter((route) => route.method === 'GET').map((route) => route.path)
  const range = fc.record({
    kind: fc.constant('header' as const),
    name: fc.constant('Range'),
    value: fc.constantFrom(...RANGES),
  })
  return fc
    .record({
      pattern: fc.constantFrom(...reads),
      params: fc.array(fc.record({ kind: fc.constant('real' as const), pick: fc.nat(1000) }), {
        minLength: 4,
        maxLength: 4,
      }),
      actor: actorSpec,
      // Credentials mostly, nothing some times: the token routes then take the token alone.
      auth: fc.oneof(
        { weight: 6, arbitrary: fc.constant({ kind: 'valid' as const }) },
        { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 1, arbitrary: authSpec },
      ),
      query: fc.oneof(
        { weight: 3, arbitrary: fc.constant<QueryItem[]>([]) },
        { weight: 1, arbitrary: fc.constant<QueryItem[]>([{ kind: 'raw', value: 'with-token=1' }]) },
        { weight: 2, arbitrary: tokenSpec.map((token): QueryItem[] => [{ kind: 'token', token }]) },
      ),
      headers: fc.tuple(range, fc.array(headerSpec, { maxLength: 2 })).map(([r, rest]) => [r, ...rest]),
    })
    .map(({ pattern, params, actor, auth, query, headers }): RequestSpec => ({
      actor,
      auth,
      method: { kind: 'literal', value: 'GET' },
      path: { kind: 'pattern', pattern, params },
      query,
      headers,
      host: 'normal',
      contentType: 'auto',
      body: { kind: 'none' },
      framing: { kind: 'exact' },
    }))
}

/** One step of a run: a request to any route, a read, an upload, a tus upload or a chunked upload. */
export function stepArbitrary(routes: readonly RouteShape[]): fc.Arbitrary<Step> {
  const request = (arb: fc.Arbitrary<RequestSpec>): fc.Arbitrary<Step> =>
    arb.map((spec) => ({ kind: 'request' as const, request: spec }))
  return fc.oneof(
    { weight: 10, arbitrary: request(anyRequest(routes)) },
    { weight: 4, arbitrary: request(readRequest(routes)) },
    { weight: 5, arbitrary: request(uploadRequest()) },
    { weight: 2, arbitrary: tusScenario },
    { weight: 1, arbitrary: chunkedScenario },
  )
}

/** One run: a few steps in a row, against the state the earlier runs left. */
export function runArbitrary(routes: readonly RouteShape[]): fc.Arbitrary<Step[]> {
  return fc.array(stepArbitrary(routes), { minLength: 1, maxLength: 6 })
}
