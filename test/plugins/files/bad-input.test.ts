import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { waitFor } from '../../helpers/wait.js'
import { parseXml, text } from '../../helpers/xml.js'
import { INVALID, expectError, xmlOf } from '../identity/permissions.fixtures.js'
import {
  PNG,
  SOURCE_KEY,
  countRows,
  fileRequest,
  fileRow,
  other,
  storedBytes,
  storedKeys,
  tempFiles,
  upload,
  uploaded,
  usedSpace,
} from './files.helpers.js'

const MAX = 1024 * 1024
const TOO_LARGE = `The file is larger than ${MAX} bytes, the largest this server accepts.`
const NO_FILE = 'send the file as the multipart file part "path" (or "file", "file[path]")'

/**
 * A multipart upload whose part carries `filename` as is, or in RFC 5987 form (`filename*`)
 * when it holds C0 controls, which a part header cannot carry raw (busboy refuses the header).
 */
function withFilename(filename: string, data: Buffer): { body: Buffer; headers: Record<string, string> } {
  const { body, headers } = multipartRequest([{ name: 'path', filename: 'placeholder', data }])
  // eslint-disable-next-line no-control-regex
  const param = /[\u0000-\u001f]/.test(filename)
    ? `filename*=UTF-8''${encodeURIComponent(filename)}`
    : `filename="${filename.replace(/"/g, '%22')}"`
  const text = body.toString('latin1').replace('filename="placeholder"', Buffer.from(param).toString('latin1'))
  return { body: Buffer.from(text, 'latin1'), headers }
}

describe('bad input: file names, cut connections, malformed bodies, oversize files', () => {
  let app: TestApp
  let alice: DigestClient

  beforeAll(async () => {
    app = await startApp({ config: { files: { max_file_size: MAX } } })
    alice = await app.createUser({ username: 'alice' })
  })
  afterAll(async () => app?.close())

  /** Checks that a request left nothing behind: storage, temporary files, rows, used_space. */
  async function leavesNothing(run: () => Promise<void>): Promise<void> {
    const keys = await storedKeys(app)
    const files = await countRows(app, 'files')
    const used = await usedSpace(app)
    const started = app.kernel.inFlight.started
    await run()
    // A body cut off is answered by the server's client-error path at once, while the upload
    // handler may still be removing what it had begun to store: wait for that handler to end
    // (the tables alone can look clean before a slow handler has even written its guard).
    await waitFor(() => app.kernel.inFlight.started > started && app.kernel.inFlight.count === 0, {
      message: 'the request handlers to end',
    })
    await waitFor(
      async () =>
        tempFiles(app).length === 0 &&
        (await countRows(app, 'storage_trash')) === 0 &&
        (await countRows(app, 'pending_uploads')) === 0,
      { message: 'the interrupted uploads to be cleaned up' },
    )
    expect(await storedKeys(app)).toEqual(keys)
    expect(tempFiles(app)).toEqual([])
    expect(await countRows(app, 'files')).toBe(files)
    expect(await countRows(app, 'pending_uploads')).toBe(0)
    // No upload left a guard behind (see guardUpload): each one settled and cleaned up.
    expect(await countRows(app, 'storage_trash')).toBe(0)
    expect(await usedSpace(app)).toBe(used)
  }

  it('file names are made harmless: last path segment, no control characters, 255 characters, extension kept', async () => {
    const long = `${'x'.repeat(296)}.mp4`
    const cases: [string, string][] = [
      ['../../etc/passwd', 'passwd'],
      ['a/b', 'b'],
      ['C:\\Users\\me\\clip.mp4', 'clip.mp4'],
      ['..', 'file'],
      ['/', 'file'],
      [long, `${'x'.repeat(251)}.mp4`],
      ['y'.repeat(300), 'y'.repeat(255)],
      ['bell\u0007 and\u0001 nul\u001f.png', 'bell and nul.png'],
      ['tab\there.png', 'tabhere.png'],
      ['next\u0085line\u2028.txt', 'nextline.txt'],
      ['  spaced    out  .txt ', 'spaced out .txt'],
      ['Été à Noël.mp4', 'Été à Noël.mp4'],
      ['<img src=x onerror=alert(1)>.png', '<img src=x onerror=alert(1)>.png'],
      ['<script>alert(1)</script>.png', 'script>.png'],
      ['end ]]> of CDATA ]]>.png', 'end ]]> of CDATA ]]>.png'],
    ]
    for (const [sent, expected] of cases) {
      const res = await alice.post('/files', withFilename(sent, PNG))
      // Parsed back: the answer is well-formed XML whatever the name held.
      const file = parseXml(res.body).file
      expect(res.status, res.body).toBe(200)
      expect(text(file.name)).toBe(expected)
      expect([...text(file.name)].length).toBeLessThanOrEqual(255)
      const row = (await fileRow(app, text(file.slug)))!
      expect(row.name).toBe(expected)
      // Storage keys are generated, never derived from names.
      expect(row.storageKey).toMatch(SOURCE_KEY)
      expect(text(xmlOf(await alice.get(`/file/${row.slug}`), 200).file.name)).toBe(expected)
    }
    expect((await storedKeys(app)).every((key) => /^files\/[0-9a-f]{24}\/source$/.test(key))).toBe(true)
  })

  it('a name field is made harmless the same way; a name in RFC 5987 form is decoded', async () => {
    const named = await uploaded(alice, PNG, { filename: 'blob', fields: { name: '../x/\u0007evil ]]>.png' } })
    expect(text(named.name)).toBe('evil ]]>.png')
    const { body, headers } = multipartRequest([{ name: 'path', filename: 'unused', data: PNG }])
    const encoded = Buffer.from(
      body.toString('latin1').replace('filename="unused"', `filename*=UTF-8''${encodeURIComponent('Ünïcode ✓.png')}`),
      'latin1',
    )
    const res = await alice.post('/files', { body: encoded, headers })
    expect(text(xmlOf(res, 200).file.name)).toBe('Ünïcode ✓.png')
  })

  it('a part with an empty file name, or one of spaces, is named "file"', async () => {
    for (const filename of ['', '   ']) {
      const file = await uploaded(alice, PNG, { filename })
      expect(text(file.name)).toBe('file')
      expect(text(file.size)).toBe(String(PNG.length))
    }
  })

  it('a part without a file name is a file when typed application/octet-stream, a text field otherwise', async () => {
    const { body, headers } = multipartRequest([{ name: 'path', filename: 'x', data: PNG }])
    const bare = body.toString('latin1').replace('; filename="x"', '')
    const file = await alice.post('/files', { body: Buffer.from(bare, 'latin1'), headers })
    expect(text(xmlOf(file, 200).file.name)).toBe('file')
    // Text, not the PNG: binary with a NUL in a text field is refused for the NUL first (kernel rule).
    const textual = multipartRequest([{ name: 'path', filename: 'x', data: Buffer.from('plain words') }])
    const field = textual.body
      .toString('latin1')
      .replace('; filename="x"', '')
      .replace('Content-Type: application/octet-stream', 'Content-Type: text/plain')
    await leavesNothing(async () => {
      const res = await alice.post('/files', { body: Buffer.from(field, 'latin1'), headers: textual.headers })
      expectError(res, 412, INVALID, { path: NO_FILE })
    })
    // The same part carrying binary with a NUL: 412 on the same field, for the NUL (a kernel rule).
    const binary = bare.replace('Content-Type: application/octet-stream', 'Content-Type: text/plain')
    await leavesNothing(async () => {
      const res = await alice.post('/files', { body: Buffer.from(binary, 'latin1'), headers })
      expectError(res, 412, INVALID, { path: 'must not contain control characters' })
    })
  })

  it('a client cut off mid-upload leaves no row, no object, no temporary file; the server still answers', async () => {
    await alice.handshake()
    const data = other(MAX - 1000)
    const { body, headers } = fileRequest(data, { filename: 'cut.bin' })
    await leavesNothing(async () => {
      const target = new URL(app.url)
      const req = httpRequest({
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/files',
        headers: {
          ...headers,
          'content-length': String(body.length),
          authorization: alice.authorization('POST', '/files'),
        },
      })
      const outcome = new Promise<string>((resolve) => {
        req.on('response', (res) => resolve(`answered ${res.statusCode}`))
        req.on('error', (error) => resolve(`error ${error.message}`))
        req.on('close', () => resolve('closed'))
      })
      req.write(body.subarray(0, body.length / 2))
      // The server is storing the part: a temporary file exists.
      await waitFor(() => tempFiles(app).length > 0, { message: 'a temporary file' })
      expect(tempFiles(app)).toHaveLength(1)
      req.destroy()
      expect(await outcome).not.toMatch(/^answered/)
    })
    expect((await alice.get('/files')).status).toBe(200)
    expect(text((await uploaded(alice, PNG, { filename: 'after.png' })).name)).toBe('after.png')
  })

  it('a client gone right after the file part starts leaves nothing either, and crashes nothing', async () => {
    await alice.handshake()
    const { body, headers } = fileRequest(other(200_000), { filename: 'early.bin' })
    const start = body.indexOf('\r\n\r\n') + 4 + 16
    await leavesNothing(async () => {
      const answers = Array.from({ length: 5 }, async () => {
        const target = new URL(app.url)
        const req = httpRequest({
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: '/files',
          headers: {
            ...headers,
            'content-length': String(body.length),
            authorization: alice.authorization('POST', '/files'),
          },
        })
        const outcome = new Promise<string>((resolve) => {
          req.on('response', (res) => {
            res.resume()
            resolve(`answered ${res.statusCode}`)
          })
          req.on('error', (error) => resolve(`error ${error.message}`))
        })
        // Half-closed: the body stops short of its Content-Length, and the server still answers
        // (its client-error path; the handler cleans up behind it, which leavesNothing awaits).
        req.write(body.subarray(0, start), () => req.socket!.end())
        return outcome
      })
      expect(await Promise.all(answers)).toEqual(Array.from({ length: 5 }, () => 'answered 400'))
    })
    expect((await alice.get('/files')).status).toBe(200)
  })

  it('a malformed multipart body is a 400 and stores nothing', async () => {
    const { body, headers } = fileRequest(other(500_000), { filename: 'broken.bin' })
    const boundary = headers['content-type']!.split('boundary=')[1]!
    await leavesNothing(async () => {
      // No closing boundary: the body ends inside a part.
      const cut = body.subarray(0, body.length - `\r\n--${boundary}--\r\n`.length - 10)
      const res = await alice.post('/files', { body: cut, headers })
      expectError(res, 400, 'Malformed form body: Unexpected end of form.')
      // The file part is complete, then the body breaks off in the next part's headers.
      const broken = Buffer.concat([
        body.subarray(0, body.length - `--${boundary}--\r\n`.length),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; na`),
      ])
      expectError(
        await alice.post('/files', { body: broken, headers }),
        400,
        'Malformed form body: Unexpected end of form.',
      )
      // No boundary at all.
      expectError(
        await alice.post('/files', { body, headers: { 'content-type': 'multipart/form-data' } }),
        400,
        'Malformed form body: Multipart: Boundary not found.',
      )
      // Not a form.
      expectError(
        await alice.post('/files', { body: PNG, headers: { 'content-type': 'image/png' } }),
        400,
        'Send the request fields as application/x-www-form-urlencoded or multipart/form-data.',
      )
    })
  })

  it('too many file parts is a 413, and the parts already stored are removed', async () => {
    await leavesNothing(async () => {
      const parts = Array.from({ length: 5 }, (_, i) => ({ name: 'path', filename: `f${i}.bin`, data: other(200_000) }))
      expectError(await alice.post('/files', multipartRequest(parts)), 413, 'The form has too many file parts.')
    })
  })

  it('files.max_file_size: one byte more is a 413 and nothing is stored; exactly the limit passes', async () => {
    await leavesNothing(async () => {
      expectError(await upload(alice, other(MAX + 1)), 413, TOO_LARGE)
      expectError(await upload(alice, other(3 * MAX)), 413, TOO_LARGE)
    })
    const data = other(MAX)
    const file = await uploaded(alice, data, { filename: 'exact.bin' })
    // Compared with equals: toEqual walks a megabyte byte by byte, slowly.
    expect((await storedBytes(app, (await fileRow(app, text(file.slug)))!.storageKey)).equals(data)).toBe(true)
  })

  it('files.max_file_size bounds a chunked upload as a whole, not only each piece', async () => {
    const piece = (data: Buffer, chunk: number) =>
      upload(alice, data, { filename: 'blob', fields: { name: 'pieces.bin', chunk: String(chunk), chunks: '3' } })
    expect((await piece(other(MAX / 2), 0)).status).toBe(200)
    expect((await piece(other(MAX / 2), 1)).status).toBe(200)
    const keys = await storedKeys(app)
    expectError(await piece(other(1), 2), 413, TOO_LARGE)
    expect(await storedKeys(app)).toEqual(keys)
    expect(await countRows(app, 'pending_uploads')).toBe(1)
    // Replacing a piece with a smaller one makes it fit.
    expect((await piece(other(MAX / 2 - 1), 1)).status).toBe(200)
    const last = await piece(other(1), 2)
    expect(text(xmlOf(last, 200).file.size)).toBe(String(MAX))
  })

  it('an unauthenticated upload is refused before anything is stored', async () => {
    const keys = await storedKeys(app)
    const { body, headers } = fileRequest(randomBytes(100_000))
    const res = await rawRequest(`${app.url}/files`, 'POST', { body, headers })
    expect(res.status).toBe(401)
    expect(await storedKeys(app)).toEqual(keys)
    expect(tempFiles(app)).toEqual([])
  })
})
