import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PDF, PNG } from '../plugins/files/files.helpers.js'
import { createRole } from '../plugins/resources/resources.helpers.js'
import { xmlOf } from '../helpers/answers.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../helpers/digest-client.js'
import { type Part, multipart, multipartRequest } from '../helpers/multipart.js'
import { type XmlObject, list, text } from '../helpers/xml.js'
import { expectDescriptorsBack, openDescriptors } from './hostile.helpers.js'
import {
  HOLD_HEADER,
  SEED,
  expectNoTraces,
  expectServing,
  headLength,
  probeHandlers,
  rawExchange,
  seeded,
  traces,
  watchLeakedHandles,
} from './cuts.helpers.js'

/**
 * Every route that takes a body (POST, PUT, PATCH, and those routed for every method), taken
 * from the route table so that a new route is covered without being listed here, sent bodies
 * that break off: a multipart form missing its closing boundary (after whole fields, or in a
 * file part; the HTTP body itself is complete: honest Content-Length), and bodies the client
 * stops writing short of their Content-Length (urlencoded or multipart), then destroys the
 * socket or half-closes it; also with the client gone before the handler reads the body (as
 * when a query before it is slow). Each request reaches its handler: path parameters name
 * real objects, the upload endpoints get the token of an upload link, the view counter the
 * view token of a player page; all Digest-authenticated as the administrator.
 *
 * Each answer is nothing (the socket was cut) or a 4xx, never a 5xx; every handler settles
 * (none waits forever on a body that will not come); the server still answers; nothing is
 * left behind (storage, temporary files, upload rows, work folders); descriptors come back.
 */

const BODY_METHODS = ['POST', 'PUT', 'PATCH'] as const
const URLENCODED = 'application/x-www-form-urlencoded'

/** File fields the upload handlers take (their first file part is stored; any other is drained). */
const FILE_FIELD: Record<string, string> = {
  '/files': 'path',
  '/files/:directory': 'path',
  '/upload/json': 'path',
  '/upload/html': 'path',
  '/file/:file/subtitles': 'subtitle',
  '/file/:file/snapshots': 'file_upload',
}

/** Plausible fields, so a handler would have something to work on had the body been whole. */
const FIELDS: Record<string, string> = {
  name: `cut-${randomBytes(3).toString('hex')}`,
  title: 'Cut short',
  language: 'fr',
}
const FIELD_PARTS: Part[] = Object.entries(FIELDS).map(([name, value]) => ({ name, value }))

const app: TestApp = await startApp({ jobs: false })
const probe = probeHandlers(app)
const handles = watchLeakedHandles()
const targets = app.kernel.routes.routes.flatMap((route) =>
  BODY_METHODS.filter((method) => route.method === method || route.method === 'ALL').map((method) => ({
    method,
    route,
  })),
)

describe('bodies cut short, on every route that takes one', () => {
  let admin: DigestClient
  /** A real object for each path parameter (made once; `code` is single-use, so made per request). */
  const params: Record<string, () => Promise<string>> = {}
  /** The query (token) some routes need to reach their handler. */
  let uploadToken: string
  let viewToken: string
  let random = seeded(SEED)

  beforeAll(async () => {
    admin = app.client
    const slugOf = (res: Response, status: number, element: string): string => text(xmlOf(res, status)[element].slug)
    const form = (path: string, fields: Record<string, string | number>) => admin.post(path, { form: fields })

    await app.createUser({ username: 'victim' })
    const group = slugOf(await form('/platform/default/groups', { name: 'Cut group' }), 201, 'group')
    const role = await createRole(app, 'Cut role', ['media.view'])
    const profile = slugOf(await form('/platform/default/profiles', { name: 'Cut profile', quota: 0 }), 201, 'profile')
    const metadata = slugOf(
      await form('/platform/default/metadata', { name: 'Cut field', type: 'varchar', file_type: 'video' }),
      201,
      'metadata',
    )
    const directory = slugOf(await form('/files', { name: 'Cut folder' }), 201, 'directory')
    const file = text(
      xmlOf(await admin.post('/files', multipartRequest([{ name: 'path', filename: 'a.pdf', data: PDF }])), 200).file
        .slug,
    )
    // A logo for insertlogo's `logo` field (the truncated form never gets that far; the slug is real anyway).
    xmlOf(await admin.post('/files', multipartRequest([{ name: 'path', filename: 'logo.png', data: PNG }])), 200)
    const media = slugOf(
      await form('/platform/default/medias', {
        name: 'Cut TV',
        domain_name: 'cut-tv.example.org',
        contact_email: 'tv@example.org',
      }),
      201,
      'media',
    )
    const stream = slugOf(
      await form(`/media/${media}/streams`, { title: 'Cuts', visibility: 'visible' }),
      201,
      'stream',
    )
    const resource = slugOf(
      await form(`/stream/${stream}/resources`, { file, title: 'Cut talk', visibility: 'visible' }),
      201,
      'resource',
    )
    const theme = slugOf(
      await form('/platform/default/player_theme', { name: 'Cut theme', background_color: '#000000' }),
      201,
      'player_theme',
    )
    const behavior = slugOf(
      await form('/platform/default/player_behavior', { name: 'Cut behavior', autoplay: '0' }),
      201,
      'player_behavior',
    )
    const widget = slugOf(
      await form(`/resource/${resource}/widgets`, { name: 'Cut widget', size: '640x360' }),
      201,
      'widget',
    )

    const links = list<XmlObject>(xmlOf(await admin.post('/files/upload_links'), 200).links.link)
    uploadToken = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href'])).searchParams.get('token')!
    const created = await rawRequest(`${app.url}/upload/tus?token=${encodeURIComponent(uploadToken)}`, 'POST', {
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '1000' },
    })
    expect(created.status, created.body).toBe(201)
    const tusId = /\/upload\/tus\/([0-9a-f]{32})/.exec(String(created.headers.location))![1]!
    const page = await rawRequest(`${app.url}/player/${resource}`, 'GET', { headers: { accept: 'text/html' } })
    expect(page.status, page.body.slice(0, 300)).toBe(200)
    const config = /<script type="application\/json" id="player-config">([^<]*)<\/script>/.exec(page.body)![1]!
    viewToken = new URL((JSON.parse(config) as { views: string }).views).searchParams.get('token')!

    const fixed: Record<string, string> = {
      platform: 'default',
      username: 'victim',
      group,
      role,
      profile,
      metadata,
      directory,
      file,
      media,
      stream,
      channel: `${media}-web`,
      resource,
      theme,
      behavior,
      widget,
      id: tusId,
    }
    for (const [name, value] of Object.entries(fixed)) params[name] = async () => value
    params.code = async () => {
      const delivered = xmlOf(await admin.get('/extension/widget/recorder'), 200).widget.code
      return /\/recorder\/([A-Za-z0-9]{32})/.exec(decodeURIComponent(text(delivered)))![1]!
    }
  })

  afterAll(async () => {
    handles.stop()
    await app.close()
  })

  /** The request target of a route: its parameters filled (a junk slug when nothing fits), its token. */
  async function targetOf(path: string, purpose: string | undefined): Promise<string> {
    let filled = ''
    for (const segment of path.split('/').slice(1)) {
      const match = /^:(\w+)(.*)$/.exec(segment)
      const value = match ? await (params[match[1]!]?.() ?? 'no-such-thing') : undefined
      filled += `/${match ? `${encodeURIComponent(value!)}${match[2]}` : segment}`
    }
    if (purpose === 'player.view') return `${filled}?token=${encodeURIComponent(viewToken)}`
    if (path.startsWith('/upload/')) return `${filled}?token=${encodeURIComponent(uploadToken)}`
    return filled
  }

  /** A multipart form whose closing boundary never comes: the last part ends; or a file part is cut short. */
  function truncatedMultipart(fileField: string, size: number): { fields: Buffer; file: Buffer; type: string } {
    const data = randomBytes(size)
    const { body, contentType } = multipart([...FIELD_PARTS, { name: fileField, filename: 'cut.bin', data }])
    const boundary = contentType.split('boundary=')[1]!
    // The body ends `<data>\r\n--<boundary>--\r\n`.
    const fileStart = body.length - `\r\n--${boundary}--\r\n`.length - data.length
    const partStart = body.lastIndexOf(`--${boundary}\r\n`)
    return {
      fields: body.subarray(0, partStart),
      // The file part breaks off somewhere in its data.
      file: body.subarray(0, fileStart + random.int(1, data.length - 1)),
      type: contentType,
    }
  }

  /** The fields as an urlencoded body, long enough that a cut leaves a good part of it unsent. */
  const urlencoded = Buffer.from(`${new URLSearchParams(FIELDS)}&filler=${'x'.repeat(4000)}`)

  it.each(targets.map(({ method, route }) => [`${method} ${route.path}`, method, route] as const))(
    '%s',
    async (name, method, route) => {
      random = seeded(`${SEED} ${name}`)
      await admin.handshake()
      // Warm up first-use work (pools, lazily made servers) before counting descriptors.
      await expectServing(admin)
      const before = await traces(app)
      const descriptors = openDescriptors()
      const from = probe.seen.length
      const outcomes: { what: string; status: number | undefined; body?: string }[] = []

      /**
       * One request as the administrator (its own Digest Authorization), sent whole or cut in
       * the body (after the head, before the Content-Length announced); `hold`: its handler
       * starts only once the request is aborted (see `probeHandlers`).
       */
      const send = async (
        what: string,
        body: Buffer,
        type: string,
        finish: 'complete' | 'destroy' | 'end',
        hold = false,
      ): Promise<void> => {
        const target = await targetOf(route.path, route.options.tokenPurpose)
        const headers: Record<string, string> = {
          authorization: admin.authorization(method, target),
          'content-type': type,
          'x-cut-id': what,
          // The tus endpoint answers 412 to anything without its protocol version, before reading on.
          ...(route.path.startsWith('/upload/tus') ? { 'tus-resumable': '1.0.0' } : {}),
          ...(hold ? { [HOLD_HEADER]: '1' } : {}),
        }
        const exchange = { method, path: target, headers, body }
        const head = headLength(app.url, exchange)
        // At least a few bytes of body: node:http may not even start a request whose connection ends
        // within a couple of bytes after its head (then no handler runs at all).
        const at = head + random.int(16, body.length - 1)
        const outcome = await rawExchange(
          app.url,
          exchange,
          finish === 'complete' ? { kind: finish } : { kind: finish, at },
        )
        outcomes.push({ what, status: outcome.status, body: outcome.body?.toString().slice(0, 300) })
      }

      const field = FILE_FIELD[route.path] ?? 'file'
      const multipartBody = truncatedMultipart(field, random.int(20_000, 200_000))
      // Small enough for node to read it whole ahead of the handler, and so see the client gone.
      const small = truncatedMultipart(field, random.int(200, 4000))
      await send('multipart without its end', multipartBody.fields, multipartBody.type, 'complete')
      await send('multipart with a file part cut short', multipartBody.file, multipartBody.type, 'complete')
      await send('urlencoded, client gone mid-body', urlencoded, URLENCODED, 'destroy')
      await send('urlencoded, client half-closed mid-body', urlencoded, URLENCODED, 'end')
      await send('multipart, client gone mid-body', multipartBody.file, multipartBody.type, 'destroy')
      // The client is gone before the handler reads the body, as when a query before it is slow.
      await send('urlencoded, client gone before the body is read', urlencoded, URLENCODED, 'destroy', true)
      await send('multipart, client gone before the body is read', small.file, small.type, 'destroy', true)

      // A handler whose client is gone settles within milliseconds: 3 s only bounds a failure.
      const ids = outcomes.map((outcome) => outcome.what)
      await probe.settle(from, 3000, ids)
      const reached = probe.seen.slice(from).filter((entry) => entry.route === route.path)
      const readForm = reached.some((entry) => entry.readForm)
      const problems = outcomes.flatMap(({ what, status, body }) => {
        const entry = reached.find((each) => each.id === what)
        if (!entry) return [`${what}: never reached the handler`]
        // A route that reads no form (it takes no fields) may answer as usual: nothing was cut for it.
        const fine = status === undefined || (status >= 400 && status < 500) || (!readForm && status < 500)
        return [
          ...(fine ? [] : [`${what}: answered ${status}: ${body}`]),
          ...(entry.settled ? [] : [`${what}: the handler never settled`]),
          ...((entry.threw ?? 0) >= 500 ? [`${what}: the handler failed unexpectedly`] : []),
        ]
      })
      expect(problems).toEqual([])
      await expectServing(admin)
      await expectNoTraces(app, before)
      await expectDescriptorsBack(descriptors)
      expect(handles.leaked, 'files closed by garbage collection, not by their request').toEqual([])
    },
  )
})
