import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { HttpError } from '../../src/kernel/http/errors.js'
import { type Form, type FormFile, emptyForm, formFromQuery, readForm, setField } from '../../src/kernel/http/forms.js'

/** A fake request: a readable body with the given headers. */
function request(body: string | Buffer | Buffer[], headers: Record<string, string>): IncomingMessage {
  const chunks = Array.isArray(body) ? body : [typeof body === 'string' ? Buffer.from(body) : body]
  const stream = Readable.from(chunks, { objectMode: false }) as unknown as IncomingMessage
  Object.assign(stream, { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) })
  return stream
}

function urlencoded(body: string | Buffer, extra: Record<string, string> = {}): IncomingMessage {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  return request(body, {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(length),
    ...extra,
  })
}

const BOUNDARY = 'kernel-test-boundary'

function multipart(parts: { name: string; value: string; filename?: string; type?: string }[]): Buffer {
  const pieces: string[] = []
  for (const part of parts) {
    pieces.push(`--${BOUNDARY}\r\n`)
    const disposition = part.filename
      ? `form-data; name="${part.name}"; filename="${part.filename}"`
      : `form-data; name="${part.name}"`
    pieces.push(`Content-Disposition: ${disposition}\r\n`)
    if (part.type) pieces.push(`Content-Type: ${part.type}\r\n`)
    pieces.push(`\r\n${part.value}\r\n`)
  }
  pieces.push(`--${BOUNDARY}--\r\n`)
  return Buffer.from(pieces.join(''))
}

function multipartRequest(body: Buffer, chunked = false): IncomingMessage {
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }
  if (chunked) headers['transfer-encoding'] = 'chunked'
  else headers['content-length'] = String(body.length)
  return request(body, headers)
}

async function rejection(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError)
    return error as HttpError
  }
  throw new Error('expected the promise to reject')
}

const LIMITS = { bodyLimit: 1024, maxFields: 5 }

/** Plain-object copy, so toEqual compares the values of null-prototype forms. */
function plain(form: Form): unknown {
  return JSON.parse(JSON.stringify(form))
}

describe('setField', () => {
  it('sets a plain field', () => {
    const form = emptyForm()
    setField(form, 'name', 'value')
    expect(plain(form)).toEqual({ name: 'value' })
  })

  it('nests bracket notation', () => {
    const form = emptyForm()
    setField(form, 'metadata[genre]', 'jazz')
    setField(form, 'metadata[year]', '1959')
    setField(form, 'permission[Media][edit]', '1')
    setField(form, 'permission[Media][view]', '0')
    setField(form, 'permission[Stream][view]', '1')
    expect(plain(form)).toEqual({
      metadata: { genre: 'jazz', year: '1959' },
      permission: { Media: { edit: '1', view: '0' }, Stream: { view: '1' } },
    })
  })

  it('collects `name[]` into a list, in order', () => {
    const form = emptyForm()
    setField(form, 'tags[]', 'a')
    setField(form, 'tags[]', 'b')
    setField(form, 'tags[]', 'c')
    expect(plain(form)).toEqual({ tags: ['a', 'b', 'c'] })
  })

  it('collects a nested list', () => {
    const form = emptyForm()
    setField(form, 'a[b][]', '1')
    setField(form, 'a[b][]', '2')
    expect(plain(form)).toEqual({ a: { b: ['1', '2'] } })
  })

  it('lets a later value replace an earlier one', () => {
    const form = emptyForm()
    setField(form, 'name', 'first')
    setField(form, 'name', 'second')
    setField(form, 'meta[x]', '1')
    setField(form, 'meta', 'flat')
    expect(plain(form)).toEqual({ name: 'second', meta: 'flat' })
    setField(form, 'meta[y]', '2')
    expect(plain(form)).toEqual({ name: 'second', meta: { y: '2' } })
  })

  it('keeps names that are not bracket notation as they are', () => {
    const form = emptyForm()
    setField(form, 'a[b', '1')
    setField(form, 'a]b', '2')
    setField(form, '[x]', '3')
    setField(form, 'a[b]c', '4')
    expect(plain(form)).toEqual({ 'a[b': '1', 'a]b': '2', '[x]': '3', 'a[b]c': '4' })
  })

  it('makes forms without a prototype', () => {
    const form = emptyForm()
    setField(form, 'a[b]', '1')
    expect(Object.getPrototypeOf(form)).toBeNull()
    expect(Object.getPrototypeOf(form.a)).toBeNull()
    expect('toString' in form).toBe(false)
  })

  it.each([
    '__proto__',
    '__proto__[polluted]',
    'a[__proto__][polluted]',
    'constructor[prototype][polluted]',
    'a[constructor][prototype][polluted]',
    'prototype[polluted]',
    'x[prototype]',
    '__proto__[]',
  ])('ignores the dangerous name %s', (name) => {
    const form = emptyForm()
    setField(form, name, 'yes')
    expect(Object.keys(form)).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('does not pollute through formFromQuery either', () => {
    const form = formFromQuery('__proto__[polluted]=1&constructor[prototype][polluted]=1&ok=1')
    expect(plain(form)).toEqual({ ok: '1' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('formFromQuery', () => {
  it('decodes percent-encoding, plus signs and bracket notation', () => {
    const form = formFromQuery('name=Caf%C3%A9+cr%C3%A8me&metadata%5Bgenre%5D=rock&tags[]=1&tags[]=2')
    expect(plain(form)).toEqual({ name: 'Café crème', metadata: { genre: 'rock' }, tags: ['1', '2'] })
  })

  it('gives an empty form for an empty query', () => {
    expect(plain(formFromQuery(''))).toEqual({})
  })
})

describe('readForm', () => {
  it('reads a urlencoded body with bracket notation', async () => {
    const form = await readForm(urlencoded('name=A&meta%5Bk%5D=v&list[]=1&list[]=2'), LIMITS)
    expect(plain(form)).toEqual({ name: 'A', meta: { k: 'v' }, list: ['1', '2'] })
  })

  it('decodes raw UTF-8 bytes in a urlencoded body', async () => {
    const body = Buffer.concat([Buffer.from('name='), Buffer.from('Crème brûlée 🎬', 'utf8')])
    const form = await readForm(urlencoded(body), LIMITS)
    expect(form.name).toBe('Crème brûlée 🎬')
  })

  it('decodes a UTF-8 character split across chunks', async () => {
    const bytes = Buffer.from('name=é', 'utf8')
    const req = request([bytes.subarray(0, bytes.length - 1), bytes.subarray(bytes.length - 1)], {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(bytes.length),
    })
    expect((await readForm(req, LIMITS)).name).toBe('é')
  })

  it('gives an empty form for a request without a body, whatever its type', async () => {
    const form = await readForm(request('', { 'content-type': 'application/json' }), LIMITS)
    expect(plain(form)).toEqual({})
  })

  it('answers 412 for a NUL anywhere, naming every field with a control character', async () => {
    const urlencodedError = await rejection(readForm(urlencoded('a=x%00&b=y%01&c=ok&d%00=1'), LIMITS))
    expect(urlencodedError.status).toBe(412)
    expect(urlencodedError.fields).toEqual({
      a: 'must not contain control characters',
      b: 'must not contain control characters',
      d: 'must not contain control characters',
    })
    const multipartError = await rejection(
      readForm(
        multipartRequest(
          multipart([
            { name: 'a', value: 'x\u0000' },
            { name: 'b', value: 'fine' },
          ]),
        ),
        LIMITS,
      ),
    )
    expect(multipartError.fields).toEqual({ a: 'must not contain control characters' })
    expect(() => formFromQuery('q=%00')).toThrow(HttpError)
    // Without a NUL, control characters are left to the field rules (which name the field the same way).
    expect(plain(await readForm(urlencoded('b=y%01'), LIMITS))).toEqual({ b: 'y\u0001' })
  })

  it('refuses a NUL field before a later file part is handed to its handler', async () => {
    let handed = false
    const body = multipart([
      { name: 'name', value: 'a\u0000' },
      { name: 'path', value: 'bytes', filename: 'f.bin', type: 'application/octet-stream' },
    ])
    const error = await rejection(
      readForm(multipartRequest(body), LIMITS, async (file) => {
        handed = true
        file.stream.resume()
      }),
    )
    expect(error.status).toBe(412)
    expect(handed).toBe(false)
  })

  it('answers 400 for a part without a name, field or file, instead of throwing', async () => {
    for (const disposition of [
      'form-data',
      'form-data; name=""',
      'form-data; name=""; filename=""',
      'form-data; filename="a"',
    ]) {
      const body = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`)
      for (const onFile of [undefined, async (file: FormFile) => void file.stream.resume()]) {
        const error = await rejection(readForm(multipartRequest(body), LIMITS, onFile))
        expect([disposition, error.status, error.message]).toEqual([
          disposition,
          400,
          'Malformed form body: a part has no name.',
        ])
      }
    }
  })

  it('answers 400 for a body that is not a form', async () => {
    const error = await rejection(
      readForm(request('{"a":1}', { 'content-type': 'application/json', 'content-length': '7' }), LIMITS),
    )
    expect(error.status).toBe(400)
    expect(error.message).toContain('application/x-www-form-urlencoded')
  })

  it('answers 400 for a body without a content type', async () => {
    const error = await rejection(readForm(request('a=1', { 'content-length': '3' }), LIMITS))
    expect(error.status).toBe(400)
  })

  it('answers 413 when Content-Length is over the limit', async () => {
    const body = `name=${'x'.repeat(2000)}`
    const error = await rejection(readForm(urlencoded(body), LIMITS))
    expect(error.status).toBe(413)
    expect(error.message).toContain('1024')
  })

  it('answers 413 when a chunked urlencoded body grows over the limit', async () => {
    const req = request([Buffer.from('name='), Buffer.from('x'.repeat(600)), Buffer.from('y'.repeat(600))], {
      'content-type': 'application/x-www-form-urlencoded',
      'transfer-encoding': 'chunked',
    })
    const error = await rejection(readForm(req, LIMITS))
    expect(error.status).toBe(413)
  })

  it('answers 413 when a body lies about its Content-Length', async () => {
    const body = `name=${'x'.repeat(2000)}`
    const req = request(body, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '10' })
    const error = await rejection(readForm(req, LIMITS))
    expect(error.status).toBe(413)
  })

  it('accepts exactly max_fields fields and answers 413 beyond', async () => {
    const five = await readForm(urlencoded('a=1&b=2&c=3&d=4&e=5'), LIMITS)
    expect(Object.keys(five)).toHaveLength(5)
    const error = await rejection(readForm(urlencoded('a=1&b=2&c=3&d=4&e=5&f=6'), LIMITS))
    expect(error.status).toBe(413)
    expect(error.message).toContain('5')
  })

  it('counts repeated fields against max_fields', async () => {
    const error = await rejection(readForm(urlencoded('t[]=1&t[]=2&t[]=3&t[]=4&t[]=5&t[]=6'), LIMITS))
    expect(error.status).toBe(413)
  })

  it('reads multipart fields like urlencoded ones', async () => {
    const body = multipart([
      { name: 'name', value: 'Crème 🎬' },
      { name: 'metadata[genre]', value: 'jazz' },
      { name: 'tags[]', value: 'a' },
      { name: 'tags[]', value: 'b' },
    ])
    const form = await readForm(multipartRequest(body), LIMITS)
    expect(plain(form)).toEqual({ name: 'Crème 🎬', metadata: { genre: 'jazz' }, tags: ['a', 'b'] })
  })

  it('answers 413 for too many multipart fields', async () => {
    const body = multipart(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ name, value: '1' })))
    const error = await rejection(readForm(multipartRequest(body), LIMITS))
    expect(error.status).toBe(413)
  })

  it('answers 413 for a chunked multipart body over the limit', async () => {
    const body = multipart([{ name: 'name', value: 'x'.repeat(3000) }])
    const error = await rejection(readForm(multipartRequest(body, true), LIMITS))
    expect(error.status).toBe(413)
  })

  it('answers 400 for multipart without a boundary', async () => {
    const req = request('x', { 'content-type': 'multipart/form-data', 'content-length': '1' })
    const error = await rejection(readForm(req, LIMITS))
    expect(error.status).toBe(400)
  })

  it('hands file parts to onFile with the fields received before them', async () => {
    const body = multipart([
      { name: 'folder', value: 'root' },
      { name: 'path', value: 'file bytes', filename: 'clip.mp4', type: 'video/mp4' },
      { name: 'after', value: 'yes' },
    ])
    const files: { field: string; filename: string; mimeType: string; content: string; before: unknown }[] = []
    const form = await readForm(multipartRequest(body), LIMITS, async (file: FormFile) => {
      // fieldsSoFar is the live form: read it when the part arrives.
      const before = plain(file.fieldsSoFar)
      const chunks: Buffer[] = []
      for await (const chunk of file.stream) chunks.push(chunk as Buffer)
      files.push({
        field: file.field,
        filename: file.filename,
        mimeType: file.mimeType,
        content: Buffer.concat(chunks).toString(),
        before,
      })
    })
    expect(files).toEqual([
      { field: 'path', filename: 'clip.mp4', mimeType: 'video/mp4', content: 'file bytes', before: { folder: 'root' } },
    ])
    expect(plain(form)).toEqual({ folder: 'root', after: 'yes' })
  })

  it('discards file parts when the route takes none', async () => {
    const body = multipart([
      { name: 'name', value: 'n' },
      { name: 'path', value: 'ignored', filename: 'a.bin' },
    ])
    const form = await readForm(multipartRequest(body), LIMITS)
    expect(plain(form)).toEqual({ name: 'n' })
  })

  it('turns an HttpError thrown by onFile into the answer', async () => {
    const body = multipart([{ name: 'path', value: 'data', filename: 'a.bin' }])
    const error = await rejection(
      readForm(multipartRequest(body), LIMITS, async (file) => {
        file.stream.resume()
        throw new HttpError(412, 'quota exceeded', { path: 'too big' })
      }),
    )
    expect(error.status).toBe(412)
    expect(error.fields).toEqual({ path: 'too big' })
  })

  it('ignores dangerous multipart field names', async () => {
    const body = multipart([
      { name: '__proto__[polluted]', value: '1' },
      { name: 'ok', value: '1' },
    ])
    const form = await readForm(multipartRequest(body), LIMITS)
    expect(plain(form)).toEqual({ ok: '1' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
