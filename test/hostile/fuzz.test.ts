import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChannelEntity, FEED_CHANNEL_TYPE } from '../../plugins/channels/index.js'
import { MEDIA_TOKEN_PURPOSE } from '../../plugins/encoding/index.js'
import { StoredFileEntity } from '../../plugins/files/index.js'
import { safeFileName } from '../../plugins/files/file-name.js'
import { ALL_ROLE_FLAGS, UserEntity } from '../../plugins/identity/index.js'
import { MediaEntity } from '../../plugins/media/index.js'
import { PlatformEntity } from '../../plugins/platforms/index.js'
import { PlayerBehaviorEntity, PlayerThemeEntity } from '../../plugins/players/index.js'
import { viewToken } from '../../plugins/player/index.js'
import { ResourceEntity } from '../../plugins/resources/index.js'
import { createLogger, signToken, tokensWith } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'
import type { DigestClient } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { type XmlObject, list, parseXml, text } from '../helpers/xml.js'
import { SUBTITLE, World } from '../plugins/identity/authorization-matrix.fixtures.js'
import {
  type Actor,
  type AuthSpec,
  type BodySpec,
  type ChunkedScenario,
  type ContentTypeSpec,
  type DataSpec,
  type Framing,
  type HeaderSpec,
  type HostSpec,
  type ParamSpec,
  type RequestSpec,
  type RouteShape,
  type Step,
  type TokenSpec,
  type TusScenario,
  runArbitrary,
} from './fuzz.arbitraries.js'
import {
  type Leftovers,
  expectDescriptorsBack,
  expectNoLeftovers,
  leftovers,
  openDescriptors,
} from './hostile.helpers.js'

/**
 * A seeded fuzz of the real server over real sockets (127.0.0.1 only): generated garbage
 * (methods, every route of the table with odd parameters, query strings, Range, Digest, tus
 * and multipart headers, cut and mis-framed bodies) sent by a regular user, the
 * administrator and nobody. After every request: no 5xx, no crash (uncaught exception or
 * unhandled rejection), no hang; a request that failed left nothing behind (storage
 * objects, temporary files, upload rows). After every run: the server still answers and
 * every stored object belongs to a file or a pending upload. At the end: descriptors came
 * back, and every file the API lists was uploaded whole and answers all its bytes.
 *
 * MEDIACTL_FUZZ_SEED replays a seed (printed on every run); MEDIACTL_FUZZ_RUNS runs longer.
 * The server keeps its state from one run to the next (that is the point: later garbage hits
 * what earlier garbage made), so shrinking would replay cases against another state: it is
 * off, and a failure reports the exact request instead.
 */

const DEFAULT_SEED = 20_261_209
const DEFAULT_RUNS = 100
const SEED = Number(process.env.MEDIACTL_FUZZ_SEED ?? DEFAULT_SEED)
const RUNS = Number(process.env.MEDIACTL_FUZZ_RUNS ?? DEFAULT_RUNS)
if (!Number.isSafeInteger(SEED) || !Number.isSafeInteger(RUNS) || RUNS < 1) {
  throw new Error('MEDIACTL_FUZZ_SEED must be an integer and MEDIACTL_FUZZ_RUNS a positive integer')
}

/** Limits of the test server, small so that oversize paths (413) are reached with small bodies. */
const BODY_LIMIT = 64 * 1024
const MAX_FILE = 256 * 1024

/** Longest a request may take before it counts as a hang. */
const REQUEST_TIMEOUT_MS = 15_000

const sha1 = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('hex')

// ---------------------------------------------------------------------------------------------
// Rendering the generated specs into bytes

/** Seeded random bytes (mulberry32): bodies are rendered from a seed, not stored in the case. */
function seededBytes(seed: number, size: number): Buffer {
  const out = Buffer.alloc(size)
  let state = seed >>> 0
  for (let i = 0; i < size; i++) {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff
  }
  return out
}

const SIGNATURES: Record<string, Buffer> = {
  none: Buffer.alloc(0),
  pdf: Buffer.from('%PDF-1.4\n'),
  png: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  mp4: Buffer.concat([Buffer.from('00000018', 'hex'), Buffer.from('ftypmp42')]),
  nul: Buffer.from([0, 0, 0, 0]),
  xml: Buffer.from('<?xml version="1.0"?><a><![CDATA[]]>]]>'),
  vtt: Buffer.from('WEBVTT\n\n'),
}

function renderData(data: DataSpec): Buffer {
  if (data.kind === 'text') return Buffer.from(data.value, 'utf8')
  const prefix = SIGNATURES[data.prefix]!
  return Buffer.concat([prefix, seededBytes(data.seed, data.size)]).subarray(0, Math.max(data.size, 0))
}

/** Percent-encodes the UTF-8 bytes of a string, unreserved characters kept (lone surrogates included). */
function percentEncode(value: string): string {
  let out = ''
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** A header value as a header line can carry it: no line breaks (they would end the head). */
const oneLine = (value: string): string => value.replace(/[\r\n]/g, ' ')

const renderValue = (value: string | { unit: string; times: number }): string =>
  typeof value === 'string' ? value : value.unit.repeat(value.times)

/** Names whose files become uploads (FILE_FIELDS of the files plugin). */
const UPLOAD_FIELDS = new Set(['path', 'file', 'file[path]'])

interface RenderedBody {
  bytes: Buffer
  /** The Content-Type header(s) to send. */
  contentTypes: string[]
  /** The bytes of the part the server would store as a file, when it is plain which one that is. */
  file?: Buffer
  /** The bytes of every part that could become the file. */
  candidates: Buffer[]
  /** The piece of a chunked upload it is (`chunk`, `chunks` fields), with its upload's name as stored. */
  piece?: Piece
}

/** A piece of a chunked upload, as the files plugin reads it (readPiece, safeFileName). */
interface Piece {
  name: string
  chunk: number
  chunks: number
}

const tokenChars = /^[A-Za-z0-9!#$&'*+.^_`|~-]+$/

function multipartType(boundary: string, spec: ContentTypeSpec): string[] {
  const quoted = tokenChars.test(boundary) ? boundary : `"${boundary.replace(/"/g, '')}"`
  switch (spec) {
    case 'auto':
      return [`multipart/form-data; boundary=${quoted}`]
    case 'missing':
      return []
    case 'no-boundary':
      return ['multipart/form-data']
    case 'empty-boundary':
      return ['multipart/form-data; boundary=']
    case 'two-boundaries':
      return [`multipart/form-data; boundary=${quoted}; boundary=other`]
    case 'quoted-boundary':
      return [`multipart/form-data; boundary="${boundary}"`]
    case 'uppercase':
      return [`MULTIPART/FORM-DATA; BOUNDARY=${quoted}`]
    case 'twice':
      return ['application/x-www-form-urlencoded', `multipart/form-data; boundary=${quoted}`]
    default:
      return [spec.literal]
  }
}

function renderBody(body: BodySpec, contentType: ContentTypeSpec): RenderedBody {
  const other = (own: string[]): string[] =>
    contentType === 'auto' ? own : multipartType('----fuzzother', contentType)
  switch (body.kind) {
    case 'none':
      return { bytes: Buffer.alloc(0), contentTypes: contentType === 'auto' ? [] : other([]), candidates: [] }
    case 'urlencoded': {
      const pairs = body.fields.map(({ name, value }) => `${percentEncode(name)}=${percentEncode(renderValue(value))}`)
      return {
        bytes: Buffer.from([...pairs, body.junk].filter(Boolean).join('&'), 'utf8'),
        contentTypes: other(['application/x-www-form-urlencoded']),
        candidates: [],
      }
    }
    case 'raw':
      return { bytes: Buffer.from(body.value, 'utf8'), contentTypes: other(['application/xml']), candidates: [] }
    case 'bytes':
      return { bytes: renderData(body.data), contentTypes: other(['application/octet-stream']), candidates: [] }
    case 'multipart': {
      const eol = body.bareLf ? '\n' : '\r\n'
      const boundary = body.wrongBoundary ? `${body.boundary}X` : body.boundary
      const chunks: Buffer[] = [Buffer.from(body.preamble)]
      let file: Buffer | undefined
      let filename: string | undefined
      const candidates: Buffer[] = []
      const fields = new Map<string, string>()
      let ambiguous = false
      for (const part of body.parts) {
        chunks.push(Buffer.from(`--${boundary}${eol}`))
        if (part.kind === 'field') {
          fields.set(part.name, renderValue(part.value))
          chunks.push(
            Buffer.from(
              `Content-Disposition: form-data; name="${part.name}"${eol}${eol}${renderValue(part.value)}${eol}`,
            ),
          )
        } else if (part.kind === 'junk') {
          // A part whose headers may still name a file field: which part is the file is unclear,
          // and this one may be it.
          ambiguous = true
          candidates.push(Buffer.from(part.value, 'utf8'))
          chunks.push(Buffer.from(`${part.headers}${eol}${eol}${part.value}${eol}`))
        } else {
          const data = renderData(part.data)
          const name = part.star ? `filename*=UTF-8''${percentEncode(part.filename)}` : `filename="${part.filename}"`
          const type = part.type ? `${eol}Content-Type: ${part.type}` : ''
          chunks.push(
            Buffer.from(`Content-Disposition: form-data; name="${part.field}"; ${name}${type}${eol}${eol}`),
            data,
            Buffer.from(eol),
          )
          if (UPLOAD_FIELDS.has(part.field)) candidates.push(data)
          // busboy takes a part for a file only by a plain filename: an empty one, or one with
          // quotes or backslashes, may make a field or no part at all.
          // eslint-disable-next-line no-control-regex
          const plainName = part.filename !== '' && !/["\\\u0000-\u001f]/.test(part.filename)
          if (!plainName) ambiguous = true
          else if (file === undefined && !ambiguous && UPLOAD_FIELDS.has(part.field)) file = data
          if (UPLOAD_FIELDS.has(part.field)) filename ??= part.filename
        }
      }
      if (body.ending !== 'unclosed') chunks.push(Buffer.from(`--${boundary}--${eol}`))
      let bytes = Buffer.concat(chunks)
      if (body.ending === 'cut') bytes = bytes.subarray(0, Math.floor(bytes.length * body.cut))
      const whole = (value: string | undefined): number | undefined =>
        value !== undefined && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : undefined
      const [chunk, count] = [whole(fields.get('chunk')), whole(fields.get('chunks'))]
      const named = fields.get('name')
      const piece =
        chunk !== undefined && count !== undefined
          ? { name: safeFileName(named?.trim() ? named : (filename ?? '')), chunk, chunks: count }
          : undefined
      return { bytes, contentTypes: multipartType(body.boundary, contentType), file, candidates, piece }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The wire: one request per connection, every byte under the test's control

interface Answer {
  kind: 'answer'
  status: number
  headers: Record<string, string>
  body: Buffer
  /** False when the connection closed before the announced body came whole. */
  complete: boolean
  /**
   * The socket error seen while the request was still being written: the server answered
   * without reading the whole body and closed (a reset may then lose the end of the answer).
   */
  transportError?: string
}

type Outcome =
  | Answer
  /** The client hung up on purpose (it announced more body than it sent), with no answer by then. */
  | { kind: 'cut' }
  | { kind: 'closed'; error?: string }

/** Parses one HTTP/1.1 answer from the bytes received so far; undefined until its head is there. */
function parseAnswer(data: Buffer, isHead: boolean): Answer | undefined {
  let start = 0
  for (;;) {
    const end = data.indexOf('\r\n\r\n', start)
    if (end === -1) return undefined
    const lines = data.subarray(start, end).toString('latin1').split('\r\n')
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0)
    // 1xx (100 Continue) come before the real answer.
    if (status >= 100 && status < 200) {
      start = end + 4
      continue
    }
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':')
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const rest = data.subarray(end + 4)
    if (isHead || status === 204 || status === 304)
      return { kind: 'answer', status, headers, body: rest, complete: true }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = []
      let at = 0
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at)
        if (lineEnd === -1) return { kind: 'answer', status, headers, body: Buffer.concat(chunks), complete: false }
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16)
        if (!Number.isFinite(size))
          return { kind: 'answer', status, headers, body: Buffer.concat(chunks), complete: false }
        if (size === 0) return { kind: 'answer', status, headers, body: Buffer.concat(chunks), complete: true }
        if (rest.length < lineEnd + 2 + size + 2) {
          chunks.push(rest.subarray(lineEnd + 2))
          return { kind: 'answer', status, headers, body: Buffer.concat(chunks), complete: false }
        }
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
        at = lineEnd + 2 + size + 2
      }
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length'])
      return { kind: 'answer', status, headers, body: rest.subarray(0, length), complete: rest.length >= length }
    }
    // No framing: the body runs to the end of the connection.
    return { kind: 'answer', status, headers, body: rest, complete: false }
  }
}

/**
 * Sends bytes on a fresh connection to the test server, reads one answer and closes the
 * connection itself: requests carry no `Connection: close`, since node:http then cuts an
 * answer short (at 128 KB) when the request's body was not read, a client artifact. `hangsUp`
 * (a client that announced more body than it sent): once its bytes are written it closes its
 * side, so the server sees the body end early and answers or closes; no answer is a cut.
 * Anything that takes longer than REQUEST_TIMEOUT_MS is a hang: it throws.
 */
function exchange(port: number, bytes: Buffer, options: { isHead: boolean; hangsUp?: boolean }): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    const received: Buffer[] = []
    let settled = false
    let writeError: string | undefined
    const finish = (outcome: Outcome | Error): void => {
      if (settled) return
      settled = true
      clearTimeout(hang)
      socket.destroy()
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const current = (): Answer | undefined => parseAnswer(Buffer.concat(received), options.isHead)
    const hang = setTimeout(
      () => finish(new Error(`no whole answer within ${REQUEST_TIMEOUT_MS} ms: the server hangs on this request`)),
      REQUEST_TIMEOUT_MS,
    )
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk)
      const answer = current()
      if (answer?.complete) finish(answer)
    })
    // An early answer (401, 413) may come while the body is still being written: a write error
    // then is the server closing, not a failure; what was received counts.
    socket.on('error', (error: Error) => {
      writeError = error.message
    })
    socket.on('close', () => {
      const answer = current()
      // A 100 Continue is no answer either: the server still waited for the body that never came.
      if (!answer) finish(options.hangsUp ? { kind: 'cut' } : { kind: 'closed', error: writeError })
      // Without framing, the answer ends with the connection.
      else if (answer.headers['content-length'] === undefined && !answer.headers['transfer-encoding']) {
        finish({ ...answer, complete: true, transportError: writeError })
      } else finish({ ...answer, transportError: writeError })
    })
    socket.on('connect', () =>
      socket.write(bytes, () => {
        if (options.hangsUp) socket.end()
      }),
    )
  })
}

// ---------------------------------------------------------------------------------------------
// What a run knows: real values to fill parameters with, tokens, what the API acknowledged

interface Runtime {
  app: TestApp
  port: number
  routes: RouteShape[]
  clients: Record<Actor, DigestClient>
  /** Real values by parameter name (slugs, usernames, ids), grown with what the fuzz creates. */
  pools: Map<string, string[]>
  /** Values the fuzz must not change or delete: its own actors (their users, profiles, platform). */
  protectedValues: Set<string>
  /** Real tokens: [0] is the fuzzer's upload link to its root. */
  tokens: string[]
  /** Domains of real media (the portal's host mapping). */
  domains: string[]
  /** Files the API acknowledged, by slug, with the digest of the bytes sent for them (when known). */
  acknowledged: Map<string, { digest?: string; request: string }>
  /** Digests of every file content a request tried to upload whole (tus and chunked assemblies included). */
  intended: Set<string>
  /** Bytes of the fixture files, by slug. */
  fixtureFiles: Map<string, Buffer>
  /** Errors that would have ended a real process, as they happen. */
  crashes: unknown[]
  /** Called on a crash: the request in flight fails at once instead of waiting for its answer. */
  onCrash?: () => void
  logPath: string
  stats: Map<string, number>
  requests: number
  chunkedCount: number
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function realValue(rt: Runtime, name: string, pick: number, mutating: boolean): string {
  let pool = rt.pools.get(name) ?? []
  if (mutating) pool = pool.filter((value) => !rt.protectedValues.has(value))
  return pool.length ? pool[pick % pool.length]! : 'nothing-here'
}

function renderParam(rt: Runtime, name: string, spec: ParamSpec, mutating: boolean): string {
  switch (spec.kind) {
    case 'real':
      return percentEncode(realValue(rt, name, spec.pick, mutating))
    case 'text':
      return percentEncode(spec.value)
    case 'raw':
      return spec.value
    case 'long':
      return percentEncode(spec.unit.repeat(spec.times))
  }
}

/** Fills a route pattern's parameters (`:name`, `:name.ext`, `*`). */
function fillPattern(rt: Runtime, pattern: string, params: ParamSpec[], mutating: boolean): string {
  let index = 0
  const segments = pattern.split('/')
  return segments
    .map((segment, at) => {
      if (segment === '*') return renderParam(rt, 'file', params[index++ % params.length]!, mutating) + '/x'
      const match = /^:([A-Za-z_]+)(.*)$/.exec(segment)
      if (!match) return segment
      // `/recorder/assets/:file` names an asset, not a stored file.
      const name = segments[at - 1] === 'assets' ? 'asset' : match[1]!
      return renderParam(rt, name, params[index++ % params.length]!, mutating) + match[2]!
    })
    .join('/')
}

function tokenValue(rt: Runtime, spec: TokenSpec): string {
  if (spec.kind === 'garbage') return spec.value
  const token = rt.tokens[spec.pick % rt.tokens.length]!
  if (spec.kind === 'real') return token
  const at = spec.at % token.length
  return spec.cut ? token.slice(0, at) : `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`
}

function hostLine(rt: Runtime, host: HostSpec): string[] {
  const own = `127.0.0.1:${rt.port}`
  if (host === 'normal') return [`Host: ${own}`]
  if (host === 'missing') return []
  if (host === 'twice') return [`Host: ${own}`, `Host: ${own}`]
  if ('media' in host) return [`Host: ${rt.domains[host.media % rt.domains.length] ?? own}`]
  return [`Host: ${oneLine(host.literal)}`]
}

/** Digest parameters of a header, in order, to edit them. */
function digestParams(header: string): [string, string, boolean][] {
  return [...header.replace(/^Digest\s+/, '').matchAll(/([a-z]+)=(?:"([^"]*)"|([^,\s]*))/gi)].map((m) => [
    m[1]!,
    m[2] ?? m[3] ?? '',
    m[2] !== undefined,
  ])
}

function authorizationLines(rt: Runtime, actor: Actor, auth: AuthSpec, method: string, target: string): string[] {
  const client = rt.clients[actor]
  switch (auth.kind) {
    case 'none':
      return []
    case 'valid':
      return [`Authorization: ${client.authorization(method, target)}`]
    case 'wrong-uri':
      return [`Authorization: ${client.authorization(method, `${target}x`)}`]
    case 'www-authenticate':
      return [`WWW-Authenticate: ${client.authorization(method, target)}`]
    case 'twice':
      return [
        `Authorization: ${client.authorization(method, target)}`,
        `Authorization: ${client.authorization(method, target)}`,
      ]
    case 'literal':
      return [`Authorization: ${oneLine(auth.value)}`]
    case 'mangled': {
      const params = digestParams(client.authorization(method, target))
      let tail = ''
      for (const edit of auth.edits) {
        const at = edit.kind === 'append' ? -1 : params.findIndex(([name]) => name === edit.field)
        if (edit.kind === 'set') {
          const entry: [string, string, boolean] = [edit.field, edit.value, edit.quoted]
          if (at === -1) params.push(entry)
          else params[at] = entry
        } else if (edit.kind === 'duplicate' && at !== -1) params.push(params[at]!)
        else if (edit.kind === 'drop' && at !== -1) params.splice(at, 1)
        else if (edit.kind === 'oversize') {
          const entry: [string, string, boolean] = [edit.field, 'f'.repeat(edit.length), true]
          if (at === -1) params.push(entry)
          else params[at] = entry
        } else if (edit.kind === 'append') tail += edit.junk
      }
      const value = params.map(([name, v, quoted]) => (quoted ? `${name}="${v}"` : `${name}=${v}`)).join(', ')
      return [`Authorization: ${oneLine(`Digest ${value}${tail}`)}`]
    }
  }
}

/** A request ready for the wire, and what it should store if it is an upload that succeeds. */
interface Wire {
  method: string
  target: string
  bytes: Buffer
  isHead: boolean
  hangsUp?: boolean
  /** The file part's bytes (see RenderedBody.file). */
  file?: Buffer
  /** Every part that could become a file (see RenderedBody.candidates). */
  candidates?: Buffer[]
  /** The piece of a chunked upload it carries (see RenderedBody.piece). */
  piece?: Piece
  /**
   * Bytes follow the announced body (a Content-Length shorter than the body, or none), or the
   * chunked body is malformed: node answers the broken bytes (400, or drops the connection)
   * while this request may run unseen. A failed answer then says nothing of this request.
   */
  trailing?: boolean
  /** For reports: the head as sent and the body's size. */
  head: string
  bodySize: number
}

function frame(head: string[], body: Buffer, framing: Framing): { head: string[]; body: Buffer; hangsUp?: boolean } {
  switch (framing.kind) {
    case 'exact':
      return { head: body.length ? [...head, `Content-Length: ${body.length}`] : head, body }
    case 'shorter':
      return { head: [...head, `Content-Length: ${Math.max(0, body.length - framing.by)}`], body }
    case 'longer':
      return { head: [...head, `Content-Length: ${body.length + framing.by}`], body, hangsUp: true }
    case 'chunked': {
      const chunked = body.length
        ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
        : Buffer.from('0\r\n\r\n')
      return { head: [...head, 'Transfer-Encoding: chunked'], body: chunked }
    }
    case 'bad-chunked':
      return {
        head: [...head, 'Transfer-Encoding: chunked'],
        body: Buffer.concat([Buffer.from(`${framing.junk}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]),
        hangsUp: true,
      }
    case 'no-length':
      return { head, body }
    case 'both':
      return { head: [...head, `Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'], body }
  }
}

/**
 * Whether node may answer something else than this request (see Wire.trailing): stray bytes
 * after the announced body, or a chunked body that turns out malformed once the handler (which
 * may not read bodies: a DELETE) already runs.
 */
const trailingBytes = (framing: Framing, body: Buffer): boolean =>
  framing.kind === 'bad-chunked' || (body.length > 0 && (framing.kind === 'shorter' || framing.kind === 'no-length'))

function render(rt: Runtime, spec: RequestSpec): Wire {
  let method: string
  let pathname: string
  if (spec.path.kind === 'junk') {
    method = spec.method.kind === 'literal' ? spec.method.value : 'GET'
    pathname = spec.path.value
  } else {
    const pattern = spec.path.kind === 'route' ? rt.routes[spec.path.route % rt.routes.length]!.path : spec.path.pattern
    const own = spec.path.kind === 'route' ? rt.routes[spec.path.route % rt.routes.length]!.method : 'POST'
    // `ALL` routes (tus) answer every method: PATCH is the one that writes.
    method = spec.method.kind === 'literal' ? spec.method.value : own === 'ALL' ? 'PATCH' : own
    pathname = fillPattern(rt, pattern, spec.path.params, !SAFE_METHODS.has(method))
    if (spec.path.kind === 'route') pathname += spec.path.tail
  }
  const query = spec.query
    .map((item) =>
      item.kind === 'token'
        ? `token=${encodeURIComponent(tokenValue(rt, item.token))}`
        : item.kind === 'pair'
          ? `${percentEncode(item.key)}=${percentEncode(item.value)}`
          : item.value,
    )
    .join('&')
  const target = query ? `${pathname}?${query}` : pathname
  const body = renderBody(spec.body, spec.contentType)
  const headerLines = spec.headers.map((header: HeaderSpec) =>
    header.kind === 'upload-token'
      ? `Upload-Token: ${oneLine(tokenValue(rt, header.token))}`
      : `${header.name}: ${oneLine(header.value)}`,
  )
  const head = [
    `${method} ${target} HTTP/1.1`,
    ...hostLine(rt, spec.host),
    ...authorizationLines(rt, spec.actor, spec.auth, method, target),
    ...body.contentTypes.map((type) => `Content-Type: ${oneLine(type)}`),
    ...headerLines,
  ]
  const framed = frame(head, body.bytes, spec.framing)
  const headText = `${framed.head.join('\r\n')}\r\n\r\n`
  return {
    method,
    target,
    bytes: Buffer.concat([Buffer.from(headText, 'utf8'), framed.body]),
    isHead: method === 'HEAD',
    hangsUp: framed.hangsUp,
    trailing: trailingBytes(spec.framing, body.bytes),
    file: spec.body.kind === 'multipart' ? body.file : undefined,
    candidates: body.candidates,
    piece: spec.body.kind === 'multipart' ? body.piece : undefined,
    head: headText,
    bodySize: framed.body.length,
  }
}

/** A plain request of the checks (not fuzzed): valid Digest credentials unless `actor` is null. */
function plain(
  rt: Runtime,
  actor: Actor | null,
  method: string,
  target: string,
  options: { headers?: string[]; body?: Buffer } = {},
): Wire {
  const body = options.body ?? Buffer.alloc(0)
  const head = [
    `${method} ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${rt.port}`,
    ...(actor ? [`Authorization: ${rt.clients[actor].authorization(method, target)}`] : []),
    ...(options.headers ?? []),
    ...(body.length || method === 'POST' || method === 'PATCH' ? [`Content-Length: ${body.length}`] : []),
  ]
  const headText = `${head.join('\r\n')}\r\n\r\n`
  return {
    method,
    target,
    bytes: Buffer.concat([Buffer.from(headText), body]),
    isHead: method === 'HEAD',
    head: headText,
    bodySize: body.length,
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

/** A request as a failure report shows it: head (long values cut) and body size. */
function describeWire(wire: Wire): string {
  const head = wire.head
    .split('\r\n')
    .filter(Boolean)
    .map((line) => (line.length > 400 ? `${line.slice(0, 400)}… (${line.length} chars)` : line))
    .join('\n    ')
  const body = wire.bytes.subarray(Buffer.byteLength(wire.head))
  const excerpt = body.length ? `\n    body: ${JSON.stringify(body.subarray(0, 800).toString('latin1'))}` : ''
  const more = body.length > 800 ? ` … (${body.length - 800} more bytes)` : ''
  const hangUp = wire.hangsUp ? ', client closes its side after the bytes' : ''
  return `  ${head}\n    (${wire.bodySize} body bytes${hangUp})${excerpt}${more}`
}

/** The server's error lines for a request id (or the last ones), with their stacks. */
function serverLog(rt: Runtime, requestId?: string): string {
  let lines: string[] = []
  try {
    lines = readFileSync(rt.logPath, 'utf8').split('\n').filter(Boolean)
  } catch {
    return '(no server log)'
  }
  const matching = requestId ? lines.filter((line) => line.includes(requestId)) : []
  const chosen = matching.length ? matching : lines.slice(-3)
  return (
    chosen
      .map((line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; err?: { stack?: string } }
          return `${entry.msg ?? ''}\n${entry.err?.stack ?? line}`
        } catch {
          return line
        }
      })
      .join('\n') || '(nothing logged)'
  )
}

class FuzzFailure extends Error {
  override name = 'FuzzFailure'
}

function fail(rt: Runtime, wire: Wire, problem: string, answer?: Answer): never {
  const body = answer ? answer.body.toString('utf8').slice(0, 1500) : ''
  throw new FuzzFailure(
    `${problem}\nrequest (seed ${SEED}):\n${describeWire(wire)}` +
      (answer ? `\nanswer: ${answer.status}\n${body}` : '') +
      `\nserver log:\n${serverLog(rt, answer?.headers['x-request-id'])}`,
  )
}

/** A failed request leaves the store as it found it (expectNoLeftovers waits for background cleanup). */
async function expectUnchanged(rt: Runtime, wire: Wire, before: Leftovers, answer: Answer): Promise<void> {
  try {
    await expectNoLeftovers(rt.app, before, 5000)
  } catch {
    fail(rt, wire, `a failed request left something behind: ${leftoverDiff(before, await leftovers(rt.app))}`, answer)
  }
}

/** What changed between two snapshots, in words. */
function leftoverDiff(before: Leftovers, after: Leftovers): string {
  const changes: string[] = []
  const sets = (name: string, a: string[], b: string[]): void => {
    const added = b.filter((x) => !a.includes(x))
    const removed = a.filter((x) => !b.includes(x))
    if (added.length) changes.push(`${name} added: ${added.join(', ')}`)
    if (removed.length) changes.push(`${name} removed: ${removed.join(', ')}`)
  }
  sets('storage keys', before.keys, after.keys)
  sets('temporary files', before.temp, after.temp)
  for (const [table, count] of Object.entries(after.rows)) {
    if (before.rows[table] !== count) changes.push(`${table} rows: ${before.rows[table]} -> ${count}`)
  }
  return changes.join('; ')
}

/** Waits until no upload is in flight: no temporary file, no guard or trash row. */
async function settle(rt: Runtime): Promise<Leftovers> {
  let now: Leftovers | undefined
  await waitFor(
    async () => {
      now = await leftovers(rt.app)
      return now.temp.length === 0 && now.rows.storage_trash === 0
    },
    { timeout: 10_000, message: 'uploads in flight to settle' },
  ).catch(() => undefined)
  return now!
}

/**
 * Every stored object belongs to a file (under its prefix) or is a piece of a pending upload;
 * every file's original is stored whole (its size); no temporary file, no trash left.
 */
async function expectConsistentStore(rt: Runtime, context: string): Promise<void> {
  const state = await settle(rt)
  const em = rt.app.kernel.em()
  const files = await em.execute<
    { storage_key: string; storage_prefix: string; size: number | string; slug: string }[]
  >('select slug, storage_key, storage_prefix, size from files')
  const pending = await em.execute<{ pieces: unknown }[]>('select pieces from pending_uploads')
  const pieces = new Set(
    pending.flatMap((row) => (typeof row.pieces === 'string' ? JSON.parse(row.pieces) : row.pieces) as string[]),
  )
  const orphans = state.keys.filter((key) => !pieces.has(key) && !files.some((f) => key.startsWith(f.storage_prefix)))
  const storage = rt.app.kernel.services.ports.get('storage')
  const broken: string[] = []
  for (const file of files) {
    const stat = await storage.stat(file.storage_key)
    if (!stat || stat.size !== Number(file.size)) {
      broken.push(`${file.slug}: row says ${file.size} bytes, storage has ${stat ? stat.size : 'nothing'}`)
    }
  }
  expect(
    { temp: state.temp, trash: state.rows.storage_trash, orphans, broken },
    `stored objects after ${context} (seed ${SEED})`,
  ).toEqual({ temp: [], trash: 0, orphans: [], broken: [] })
}

/** Records an upload's answer: the file it made (slug, and the bytes it must hold when known). */
function acknowledge(rt: Runtime, wire: Wire, answer: Answer, bytes: Buffer | undefined): void {
  const type = answer.headers['content-type'] ?? ''
  let slug: string | undefined
  try {
    if (type.includes('json')) {
      const json = JSON.parse(answer.body.toString('utf8')) as { result?: { slug?: string } }
      slug = json.result?.slug
    } else if (type.includes('xml')) {
      const doc = parseXml(answer.body.toString('utf8'))
      slug = doc.file ? text(doc.file.slug) || undefined : undefined
      if (doc.directory?.slug) rt.pools.get('directory')!.push(text(doc.directory.slug))
    }
  } catch {
    // Not an answer of an upload (a page, an error): nothing to record.
  }
  const fromHeader = /\/file\/([^/?\s]+)/.exec(answer.headers['upload-file'] ?? '')?.[1]
  slug ??= fromHeader
  // Only the upload endpoints make files from the body (a subtitle's answer also shows its file).
  const path = wire.target.split('?')[0]!
  const uploads = /^\/(files(\/[^/]+)?|upload\/(json|html|tus(\/[^/]+)?))$/.test(path)
  if (!slug || !uploads || rt.fixtureFiles.has(slug) || !['POST', 'PATCH', 'HEAD'].includes(wire.method)) return
  if (!rt.acknowledged.has(slug)) rt.pools.get('file')!.push(slug)
  const digest = bytes ? sha1(bytes) : rt.acknowledged.get(slug)?.digest
  rt.acknowledged.set(slug, { digest, request: describeWire(wire) })
}

/** The pending uploads named `name` (any user's), with their pieces read back from storage. */
async function storedPieces(rt: Runtime, name: string): Promise<{ chunks: number; pieces: Buffer[] }[]> {
  const rows = await rt.app.kernel
    .em()
    .execute<{ chunks: number | string; pieces: unknown }[]>(
      'select chunks, pieces from pending_uploads where name = ?',
      [name],
    )
  const storage = rt.app.kernel.services.ports.get('storage')
  const uploads: { chunks: number; pieces: Buffer[] }[] = []
  for (const row of rows) {
    const pieces: Buffer[] = []
    for (const key of (typeof row.pieces === 'string' ? JSON.parse(row.pieces) : row.pieces) as string[]) {
      const read: Buffer[] = []
      for await (const chunk of await storage.read(key)) read.push(chunk as Buffer)
      pieces.push(Buffer.concat(read))
    }
    uploads.push({ chunks: Number(row.chunks), pieces })
  }
  return uploads
}

/**
 * A piece of a chunked upload sent by a generic request: an acknowledged piece is stored
 * whole, and the file the last piece makes may hold the pieces stored so far and this one.
 */
async function checkPiece(rt: Runtime, wire: Wire, answer: Answer, prefixes: Buffer[]): Promise<void> {
  const piece = wire.piece!
  const candidates = wire.candidates ?? []
  for (const prefix of prefixes) for (const data of candidates) rt.intended.add(sha1(Buffer.concat([prefix, data])))
  const progress = (answer.headers['content-type'] ?? '').includes('json') && answer.body.includes('"chunks"')
  if (!progress || !candidates.length) return
  const wanted = new Set(candidates.map(sha1))
  const stored = await storedPieces(rt, piece.name)
  if (!stored.some((upload) => upload.pieces[piece.chunk] && wanted.has(sha1(upload.pieces[piece.chunk]!)))) {
    fail(rt, wire, `piece ${piece.chunk} of "${piece.name}" was acknowledged but is not stored as sent`, answer)
  }
}

/**
 * Sends one request and checks it: an answer below 500 (or a hang-up the client chose), no
 * crash, and when it failed, nothing left behind. Answers the outcome.
 */
async function send(rt: Runtime, wire: Wire, options: { upload?: Buffer } = {}): Promise<Outcome> {
  // An earlier request may still be working after its answer (a handler whose answer node sent
  // early for stray bytes): what this one changes is measured from a store at rest.
  const before = await settle(rt)
  // The last piece of a chunked upload: what it assembles is the pieces stored so far, and it.
  const piece = wire.piece && wire.piece.chunks > 1 ? wire.piece : undefined
  const prefixes =
    piece && piece.chunk === piece.chunks - 1
      ? (await storedPieces(rt, piece.name))
          .filter((upload) => upload.chunks === piece.chunks)
          .map((upload) => Buffer.concat(upload.pieces.slice(0, piece.chunks - 1)))
      : []
  rt.requests += 1
  let outcome: Outcome | 'crashed'
  try {
    const crashed = new Promise<'crashed'>((resolve) => (rt.onCrash = () => resolve('crashed')))
    outcome = await Promise.race([
      exchange(rt.port, wire.bytes, { isHead: wire.isHead, hangsUp: wire.hangsUp }),
      crashed,
    ])
  } catch (error) {
    if (!rt.crashes.length) fail(rt, wire, (error as Error).message)
    outcome = 'crashed'
  } finally {
    rt.onCrash = undefined
  }
  if (rt.crashes.length || outcome === 'crashed') {
    const crash = rt.crashes.splice(0)
    fail(
      rt,
      wire,
      `the server crashed (an uncaught exception or unhandled rejection ends a real process):\n${crash
        .map((error) => (error instanceof Error ? (error.stack ?? error.message) : String(error)))
        .join('\n')}`,
      outcome !== 'crashed' && outcome.kind === 'answer' ? outcome : undefined,
    )
  }
  const key = outcome.kind === 'answer' ? String(outcome.status) : outcome.kind
  rt.stats.set(key, (rt.stats.get(key) ?? 0) + 1)
  // Stray bytes after the request are a malformed next request: node may drop the connection
  // for it, this request's answer with it. Anything else must be answered.
  if (outcome.kind === 'closed' && !wire.trailing) {
    fail(rt, wire, `the connection closed without an answer (${outcome.error ?? 'no error'})`)
  }
  if (outcome.kind === 'cut' || outcome.kind === 'closed') {
    // The server never answered before the client hung up: whatever it did must be whole.
    await expectConsistentStore(rt, 'a connection cut by the client').catch((error: Error) =>
      fail(rt, wire, error.message),
    )
    return outcome
  }
  if (outcome.status >= 500) fail(rt, wire, `answer ${outcome.status}`, outcome)
  if (outcome.status < 100) fail(rt, wire, 'an answer that is no HTTP', outcome)
  // An answer may lose its end to a reset when the server closed on a body it did not read.
  if (!outcome.complete && !wire.trailing && !outcome.transportError)
    fail(rt, wire, 'the answer was cut short', outcome)
  if (outcome.status >= 200 && outcome.status < 300) {
    if (piece) await checkPiece(rt, wire, outcome, prefixes)
    acknowledge(rt, wire, outcome, options.upload ?? (piece ? undefined : wire.file))
  } else if (wire.trailing) {
    await expectConsistentStore(rt, 'a request followed by stray bytes').catch((error: Error) =>
      fail(rt, wire, error.message, outcome),
    )
  } else await expectUnchanged(rt, wire, before, outcome)
  return outcome
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/** A resumable upload: creation, PATCHes from the offset the server holds (some odd), then HEAD or DELETE. */
async function runTus(rt: Runtime, spec: TusScenario): Promise<void> {
  const token = encodeURIComponent(tokenValue(rt, spec.token))
  const data = seededBytes(spec.seed, spec.length)
  rt.intended.add(sha1(data))
  const length = {
    right: [`Upload-Length: ${spec.length}`],
    junk: ['Upload-Length: 12abc'],
    missing: [],
    negative: ['Upload-Length: -5'],
    huge: ['Upload-Length: 99999999999999999999'],
  }[spec.lengthHeader]
  const first = data.subarray(0, Math.min(spec.withCreation, spec.length))
  const created = await send(
    rt,
    plain(rt, null, 'POST', `/upload/tus?token=${token}`, {
      headers: [
        'Tus-Resumable: 1.0.0',
        ...length,
        ...(spec.metadata ? [`Upload-Metadata: ${spec.metadata}`] : []),
        ...(first.length ? ['Content-Type: application/offset+octet-stream'] : []),
      ],
      body: first,
    }),
    { upload: data },
  )
  const location = created.kind === 'answer' ? (created.headers.location ?? '') : ''
  const id = /\/upload\/tus\/([^/?]+)/.exec(location)?.[1]
  if (!id) return
  rt.pools.get('id')!.push(id)
  const at = `/upload/tus/${id}?token=${token}`
  let offset = Number(created.kind === 'answer' ? (created.headers['upload-offset'] ?? 0) : 0)
  const learnOffset = async (): Promise<void> => {
    const head = await send(rt, plain(rt, null, 'HEAD', at, { headers: ['Tus-Resumable: 1.0.0'] }), { upload: data })
    if (head.kind === 'answer' && head.headers['upload-offset'] !== undefined)
      offset = Number(head.headers['upload-offset'])
  }
  for (const patch of spec.patches) {
    const sent = {
      right: offset,
      zero: 0,
      ahead: offset + 7,
      behind: Math.max(0, offset - 3),
      junk: 'x1',
      missing: undefined,
    }[patch.offset]
    const from = typeof sent === 'number' ? sent : offset
    const chunk = data.subarray(from, from + patch.size)
    const headers = [
      ...(patch.resumable === 'right'
        ? ['Tus-Resumable: 1.0.0']
        : patch.resumable === 'wrong'
          ? ['Tus-Resumable: 0.1']
          : []),
      ...(sent === undefined ? [] : [`Upload-Offset: ${sent}`]),
      ...(patch.contentType === 'right'
        ? ['Content-Type: application/offset+octet-stream']
        : patch.contentType === 'wrong'
          ? ['Content-Type: multipart/form-data; boundary=x']
          : []),
    ]
    const framed = frame([`PATCH ${at} HTTP/1.1`, `Host: 127.0.0.1:${rt.port}`, ...headers], chunk, patch.framing)
    const headText = `${framed.head.join('\r\n')}\r\n\r\n`
    const outcome = await send(
      rt,
      {
        method: 'PATCH',
        target: at,
        bytes: Buffer.concat([Buffer.from(headText), framed.body]),
        isHead: false,
        hangsUp: framed.hangsUp,
        trailing: trailingBytes(patch.framing, chunk),
        head: headText,
        bodySize: framed.body.length,
      },
      { upload: data },
    )
    if (outcome.kind === 'answer' && outcome.headers['upload-offset'] !== undefined) {
      offset = Number(outcome.headers['upload-offset'])
    } else if (outcome.kind === 'cut') await learnOffset()
  }
  if (spec.end === 'head') await learnOffset()
  if (spec.end === 'delete') await send(rt, plain(rt, null, 'DELETE', at, { headers: ['Tus-Resumable: 1.0.0'] }))
}

/** A chunked upload through POST /files: pieces in order mostly, some misnumbered, cut or mis-framed. */
async function runChunked(rt: Runtime, spec: ChunkedScenario): Promise<void> {
  rt.chunkedCount += 1
  // Each scenario its own name, even once made harmless (last path segment, 255 characters,
  // the extension kept): pieces of an earlier scenario never mix into this one's file.
  const name = `${spec.name}.${rt.chunkedCount}`
  const accepted: Buffer[] = []
  let next = 0
  for (const [i, piece] of spec.pieces.entries()) {
    const index =
      piece.chunk === 'next'
        ? String(next)
        : piece.chunk === 'same'
          ? String(Math.max(0, next - 1))
          : piece.chunk === 'skip'
            ? String(next + 1)
            : piece.chunk.literal
    const data = seededBytes(spec.seed + i, piece.size)
    const boundary = `----fuzzpiece${i}`
    const fields = [
      ['name', name],
      ['chunk', index],
      ['chunks', String(spec.chunks)],
    ]
    const body = Buffer.concat([
      ...fields.map(([field, value]) =>
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`),
      ),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="path"; filename="blob"\r\n\r\n`),
      data,
      Buffer.from(piece.mutation === 'unclosed' ? '\r\n' : `\r\n--${boundary}--\r\n`),
    ])
    const target = '/files'
    const head = [
      `POST ${target} HTTP/1.1`,
      `Host: 127.0.0.1:${rt.port}`,
      `Authorization: ${rt.clients[spec.actor].authorization('POST', target)}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
    ]
    const framed = frame(head, body, piece.mutation === 'shorter' ? { kind: 'shorter', by: 10 } : { kind: 'exact' })
    const headText = `${framed.head.join('\r\n')}\r\n\r\n`
    const whole =
      Number(index) === spec.chunks - 1 ? Buffer.concat([...accepted.slice(0, spec.chunks - 1), data]) : data
    if (Number(index) === spec.chunks - 1) rt.intended.add(sha1(whole))
    const outcome = await send(
      rt,
      {
        method: 'POST',
        target,
        bytes: Buffer.concat([Buffer.from(headText), framed.body]),
        isHead: false,
        trailing: piece.mutation === 'shorter',
        head: headText,
        bodySize: framed.body.length,
      },
      { upload: whole },
    )
    if (outcome.kind !== 'answer' || outcome.status !== 200) continue
    if ((outcome.headers['content-type'] ?? '').includes('json')) {
      const at = Number(index)
      accepted[at] = data
      accepted.length = at + 1
      next = at + 1
    } else {
      accepted.length = 0
      next = 0
    }
  }
}

async function runStep(rt: Runtime, step: Step): Promise<void> {
  if (step.kind === 'tus') return runTus(rt, step)
  if (step.kind === 'chunked') return runChunked(rt, step)
  const wire = render(rt, step.request)
  for (const candidate of wire.candidates ?? []) rt.intended.add(sha1(candidate))
  // An answer without framing (HEAD of a junk method, a 1xx) is read to the end of the connection.
  await send(rt, wire)
}

/** An authenticated GET / answers 200: the server still serves. */
async function expectAlive(rt: Runtime, actor: Actor): Promise<void> {
  const wire = plain(rt, actor, 'GET', '/')
  const outcome = await exchange(rt.port, wire.bytes, { isHead: false })
  if (outcome.kind !== 'answer' || outcome.status !== 200) {
    fail(
      rt,
      wire,
      `the server no longer answers ${actor}'s GET / with 200`,
      outcome.kind === 'answer' ? outcome : undefined,
    )
  }
}

/** A GET of the checks, expecting `status`; its answer. */
async function get(rt: Runtime, actor: Actor, target: string, status = 200): Promise<Answer> {
  const wire = plain(rt, actor, 'GET', target)
  const outcome = await exchange(rt.port, wire.bytes, { isHead: false })
  if (outcome.kind !== 'answer' || outcome.status !== status) {
    fail(rt, wire, `expected ${status}`, outcome.kind === 'answer' ? outcome : undefined)
  }
  return outcome
}

/** Every file of a user's store, through the API: GET /files, then each directory below. */
async function listedFiles(rt: Runtime, actor: Actor): Promise<{ slug: string; size: number }[]> {
  const files: { slug: string; size: number }[] = []
  const queue = ['/files']
  const seen = new Set<string>()
  while (queue.length) {
    const at = queue.shift()!
    if (seen.has(at)) continue
    seen.add(at)
    const doc = parseXml((await get(rt, actor, at)).body.toString('utf8'))
    for (const directory of list<XmlObject>(doc.files.directory)) queue.push(`/files/${text(directory.slug)}`)
    for (const file of list<XmlObject>(doc.files.file))
      files.push({ slug: text(file.slug), size: Number(text(file.size)) })
  }
  return files
}

// ---------------------------------------------------------------------------------------------
// The test

describe('fuzz: generated garbage against the real server', () => {
  let app: TestApp
  let world: World
  let rt: Runtime
  let logDir: string
  let descriptors: number
  const record = (error: unknown): void => {
    rt?.crashes.push(error)
    rt?.onCrash?.()
  }

  beforeAll(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'mediactl-fuzz-log-'))
    const logPath = join(logDir, 'server.log')
    app = await startApp({
      // No job runs: encodings would change the store under the leftover checks. Every route
      // of the default plugins is there all the same.
      jobs: false,
      logger: createLogger('error', logPath),
      config: {
        http: { body_limit: BODY_LIMIT, max_fields: 50 },
        files: { max_file_size: MAX_FILE, purge_schedule: '' },
        // Long runs outlive the default nonce lifetime; the fuzz's own credentials stay valid.
        auth: { nonce_ttl: 86_400 },
      },
    })
    const fuzzer = await app.createUser({ username: 'fuzzer' })
    world = await World.create(app)
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })

    // The fuzzer's and the administrator's own things, so requests reach the handlers' depths.
    const fuzzerDir = await world.directory('fuzzer')
    const fuzzerSub = await world.directory('fuzzer', fuzzerDir)
    const fuzzerMedia = await world.mediaFile('fuzzer', fuzzerDir)
    await world.addSubtitle(fuzzerMedia)
    const fuzzerFile = await world.file('fuzzer')
    const adminDir = await world.directory('admin')
    const adminMedia = await world.mediaFile('admin')
    const adminFile = await world.file('admin', adminDir)
    // Publishing on the default platform: a media with every channel type, streams, resources, a widget.
    const victimProfile = await world.profile(platform, ['platform.view', 'file.create'])
    const victim = await world.user(platform, victimProfile)
    const victimDir = await world.directory(victim)
    const victimFile = await world.file(victim, victimDir)
    const group = await world.group(platform, [victim, 'fuzzer'])
    const victimRole = await world.role(platform, ['platform.view'])
    const fullRole = await world.role(platform, ALL_ROLE_FLAGS)
    const fuzzerAccess = await world.access(platform, { user: 'fuzzer' }, fullRole)
    const victimAccess = await world.access(platform, { user: victim }, victimRole)
    const groupAccess = await world.access(platform, { group }, victimRole)
    const metadata = await world.metadata(platform)
    const media = await world.media(platform)
    const api = await world.channel(media, 'api')
    const feed = await world.channel(media, FEED_CHANNEL_TYPE)
    const streams = [await world.stream(media), await world.stream(media, 'hidden'), await world.stream(media, 'draft')]
    const resources = [
      await world.resource(streams[0]!, fuzzerMedia),
      await world.resource(streams[0]!, adminMedia, 'hidden'),
      await world.resource(streams[1]!, fuzzerFile),
      await world.resource(streams[2]!, fuzzerMedia, 'draft'),
    ]
    const widget = await world.widget(resources[0]!)
    const first = { orderBy: { id: 1 } } as const
    const channels = (await em.find(ChannelEntity, { media: { slug: media } }, first)).map((c) => c.slug)
    const themes = (await em.find(PlayerThemeEntity, {}, first)).map((t) => t.slug)
    const behaviors = (await em.find(PlayerBehaviorEntity, {}, first)).map((b) => b.slug)
    const codes = [
      await world.recorderCode('fresh'),
      await world.recorderCode('used'),
      await world.recorderCode('expired'),
    ]
    const p = world.p
    const q = world.q

    // Tokens: the fuzzer's upload links first (tus scenarios use [0]), then every other kind.
    const secret = app.kernel.services.secret
    const later = new Date(Date.now() + 86_400_000)
    const past = new Date(Date.now() - 3600_000)
    const fileRow = async (slug: string) => em.fork().findOneOrFail(StoredFileEntity, { slug })
    const resourceRow = async (slug: string) => em.fork().findOneOrFail(ResourceEntity, { slug })
    const mediaFileRow = await fileRow(fuzzerMedia)
    const tokens = [
      signToken(secret, 'upload', { u: 'fuzzer', d: null }, later),
      signToken(secret, 'upload', { u: 'fuzzer', d: fuzzerDir }, later),
      signToken(secret, 'upload', { u: 'admin', d: adminDir }, later),
      signToken(secret, 'upload', { u: victim, d: null }, later),
      signToken(secret, 'upload', { u: p.user, d: null }, later),
      signToken(secret, 'upload', { u: 'fuzzer', d: null }, past),
      signToken(secret, 'upload', { u: 'nobody', d: 'nothing' }, later),
      signToken(secret, MEDIA_TOKEN_PURPOSE, { f: mediaFileRow.id, s: mediaFileRow.slug }, later),
      signToken(secret, MEDIA_TOKEN_PURPOSE, { f: mediaFileRow.id, s: mediaFileRow.slug }, past),
      signToken(secret, MEDIA_TOKEN_PURPOSE, { f: 'x', s: fuzzerFile }, later),
      await world.resourceToken(resources[0]!),
      await world.resourceToken(resources[1]!),
      await world.resourceToken(p.hiddenResource),
      viewToken(tokensWith(secret), await resourceRow(resources[0]!), 3600),
      viewToken(tokensWith(secret), await resourceRow(resources[0]!), -10),
    ]

    const routes = app.kernel.routes.routes.map(({ method, path }) => ({ method, path }))
    const pools = new Map<string, string[]>(
      Object.entries({
        platform: ['default', p.platform.slug, q.platform.slug],
        username: ['admin', 'fuzzer', victim, p.user, q.user],
        group: [group, p.group, q.group],
        role: [victimRole, fullRole, p.role, q.role],
        profile: [victimProfile, p.profile, q.profile, p.adminProfile],
        access: [fuzzerAccess, victimAccess, groupAccess, p.userAccess, p.groupAccess, q.userAccess],
        metadata: [metadata, p.metadata, q.metadata],
        directory: [fuzzerDir, fuzzerSub, adminDir, victimDir, p.directory],
        file: [fuzzerMedia, fuzzerFile, adminMedia, adminFile, victimFile, p.file],
        snapshot: ['0', '1', 'custom', '2'],
        flavor: ['small', '360p'],
        track: ['aac.m4a', 'aac.mp3', 'mp3.mp3'],
        entry: ['master.m3u8', 'index.m3u8'],
        variant: ['v'],
        segment: ['index.m3u8', 'seg-0.ts'],
        subtitle: [SUBTITLE, 'nope.fr.vtt'],
        media: [media, p.media, q.media],
        stream: [...streams, p.stream, p.hiddenStream, p.draftStream, q.stream],
        channel: [...channels, api, feed, p.channel, p.feed],
        resource: [...resources, p.resource, p.hiddenResource, p.draftResource, q.resource],
        theme: [...themes],
        behavior: [...behaviors],
        widget: [widget, p.widget, q.widget],
        code: codes,
        asset: [],
        id: ['0'.repeat(32), 'f'.repeat(32)],
      }),
    )
    const users = await em.find(UserEntity, { username: { $in: ['admin', 'fuzzer'] } }, { populate: ['profile'] })
    const domains = (await em.find(MediaEntity, {}, first)).map((m) => m.domain).filter(Boolean) as string[]
    const fixtureFiles = new Map<string, Buffer>()
    for (const slug of [fuzzerMedia, fuzzerFile, adminMedia, adminFile, victimFile, p.file, q.file]) {
      fixtureFiles.set(slug, Buffer.from(`%PDF-1.4 ${slug}`))
    }
    rt = {
      app,
      port: Number(new URL(app.url).port),
      routes,
      clients: { fuzzer, admin: app.client },
      pools,
      // The fuzzer keeps its profile and its role on the platform: coverage does not fade out.
      protectedValues: new Set([
        'admin',
        'fuzzer',
        'default',
        fullRole,
        fuzzerAccess,
        ...users.map((u) => u.profile.slug),
      ]),
      tokens,
      domains,
      acknowledged: new Map(),
      intended: new Set(),
      fixtureFiles,
      crashes: [],
      logPath,
      stats: new Map(),
      requests: 0,
      chunkedCount: 0,
    }
    await fuzzer.handshake()
    await app.client.handshake()
    // Real names of the pages' assets and their tokens (the player's view token), from the pages themselves.
    for (const target of [`/player/${resources[0]}`, `/recorder/${codes[0]}`, `/portal/${media}`]) {
      const page = (await get(rt, 'admin', target)).body.toString('utf8')
      for (const [, asset] of page.matchAll(/assets\/([A-Za-z0-9._-]+)/g)) {
        rt.pools.get('asset')!.push(asset!)
      }
      for (const [, token] of page.matchAll(/[?&]token=([A-Za-z0-9._~%-]+)/g)) tokens.push(decodeURIComponent(token!))
    }
    // The pool opens every connection it will: what the fuzz opens after this is what it leaks.
    await Promise.all(Array.from({ length: 12 }, () => app.kernel.em().fork().execute('select 1')))
    descriptors = openDescriptors()
    process.on('uncaughtExceptionMonitor', record)
    process.on('unhandledRejection', record)
  })

  afterAll(async () => {
    process.off('uncaughtExceptionMonitor', record)
    process.off('unhandledRejection', record)
    await app?.close()
    if (logDir) rmSync(logDir, { recursive: true, force: true })
  })

  it(
    `answers every generated request below 500, leaks nothing, lists only whole files (seed ${SEED}, ${RUNS} runs)`,
    async () => {
      const started = performance.now()
      console.log(
        `fuzz: seed ${SEED}, ${RUNS} runs (MEDIACTL_FUZZ_SEED=${SEED} replays it; MEDIACTL_FUZZ_RUNS sets the count)`,
      )
      await fc.assert(
        fc.asyncProperty(runArbitrary(rt.routes), async (steps) => {
          for (const step of steps) await runStep(rt, step)
          await expectAlive(rt, 'fuzzer')
          await expectConsistentStore(rt, 'a run')
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      )

      // Afterwards: the process serves both users; nothing is left open.
      await expectAlive(rt, 'fuzzer')
      await expectAlive(rt, 'admin')
      await expectDescriptorsBack(descriptors, 8)

      // Every file the API lists was uploaded whole and answers all its bytes: each is
      // published in a fresh place (the fuzz may have deleted the others) with an online api
      // channel, and its original fetched through /resource/<slug>/source.
      const platform = await app.kernel.em().findOneOrFail(PlatformEntity, { slug: 'default' })
      const media = await world.media(platform)
      await world.channel(media, 'api')
      const stream = await world.stream(media)
      let checked = 0
      for (const actor of ['fuzzer', 'admin'] as const) {
        for (const file of await listedFiles(rt, actor)) {
          const resource = await world.resource(stream, file.slug)
          const source = await get(rt, 'admin', `/resource/${resource}/source`)
          const digest = sha1(source.body)
          const expected = rt.fixtureFiles.get(file.slug)
          const made = rt.acknowledged.get(file.slug)
          const context = `file ${file.slug} of ${actor} (seed ${SEED})${made ? `, made by\n${made.request}` : ''}`
          expect(source.body.length, context).toBe(file.size)
          if (expected) expect(digest, context).toBe(sha1(expected))
          else if (made?.digest) {
            expect(digest, context).toBe(made.digest)
          } else expect(rt.intended.has(digest), `${context}: holds bytes no request sent whole`).toBe(true)
          checked += 1
        }
      }

      // Abandoned uploads go with the purge (their time is up a day from now); then nothing is
      // pending, no tus upload is kept, every stored object belongs to a file.
      await app.kernel.services.events.emit('maintenance.purge', {
        now: new Date(Date.now() + 2 * 86_400_000),
        report: {},
      })
      await expectConsistentStore(rt, 'the purge')
      const after = await leftovers(app)
      expect(after.rows.pending_uploads, 'pending uploads after the purge').toBe(0)
      const tus = join(app.dataDir, 'storage', '~tus')
      const kept = (() => {
        try {
          return readdirSync(tus)
        } catch {
          return []
        }
      })()
      expect(kept, 'tus uploads kept after the purge').toEqual([])

      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const statuses = [...rt.stats.entries()].sort(([a], [b]) => a.localeCompare(b))
      console.log(
        `fuzz: ${rt.requests} requests in ${seconds} s, ${rt.acknowledged.size} files uploaded, ${checked} listed files ` +
          `checked; answers: ${statuses.map(([status, count]) => `${status}×${count}`).join(' ')}`,
      )
    },
    60_000 + RUNS * 1500,
  )
})
