import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileQueries } from '../../../plugins/files/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { INVALID, NEEDS, expectError, xmlOf } from '../../helpers/answers.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { PDF, storedBytes, uploaded } from '../files/files.helpers.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'

/** `POST /file/<slug>/subtitles` and `DELETE /file/<slug>/subtitles/<id>`, listed on file info. */

const SRT = Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nBonjour\n')
const VTT = Buffer.from('WEBVTT\n\n00:00:03.000 --> 00:00:04.000\nHello\n')
const sha1 = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('hex')

let app: TestApp
let owner: DigestClient

const add = (client: DigestClient, slug: string, fields: Record<string, string>, data?: Buffer, field = 'subtitle') =>
  client.post(
    `/file/${slug}/subtitles`,
    multipartRequest([
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      ...(data ? [{ name: field, filename: 'track.srt', data }] : []),
    ]),
  )

const subtitlesOf = (file: XmlObject): XmlObject[] => list<XmlObject>((file.subtitles as XmlObject)?.subtitle)

beforeAll(async () => {
  app = await startApp()
  owner = await userWithFlags(app, 'subtitler', ['platform.view', 'file.create', 'file.edit', 'file.delete'])
})
afterAll(async () => app?.close())

describe('subtitles of a file', () => {
  it('adds an SRT (201, file info lists it; the WebVTT version is stored) and a WebVTT, then deletes one (204)', async () => {
    const slug = text((await uploaded(owner, PDF, { filename: 'talk.pdf' })).slug)
    const first = xmlOf(await add(owner, slug, { language: 'fr' }, SRT), 201).file as XmlObject
    const srtId = `${sha1(SRT)}.fr.srt`
    expect(subtitlesOf(first)).toEqual([{ '@language': 'fr', '@href': `${app.url}/file/${slug}/subtitles/${srtId}` }])

    const file = (await fileQueries.fileBySlug(app.kernel.services.reader, slug))!
    expect((await storedBytes(app, `${file.storagePrefix}subtitles/${srtId}`)).equals(SRT)).toBe(true)
    expect((await storedBytes(app, `${file.storagePrefix}subtitles/${srtId}.vtt`)).toString()).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nBonjour\n',
    )

    const vttId = `${sha1(VTT)}.en.vtt`
    const second = xmlOf(await add(owner, slug, { language: 'en' }, VTT), 201).file as XmlObject
    expect(subtitlesOf(second).map((s) => s['@href'])).toEqual([
      `${app.url}/file/${slug}/subtitles/${srtId}`,
      `${app.url}/file/${slug}/subtitles/${vttId}`,
    ])
    // The same content in the same language again changes nothing.
    expect(subtitlesOf(xmlOf(await add(owner, slug, { language: 'en' }, VTT), 201).file as XmlObject)).toHaveLength(2)

    // The href also delivers the WebVTT version (Digest of the owner, byte ranges); nobody else gets it.
    const vtt = await owner.get(`/file/${slug}/subtitles/${srtId}`)
    expect(vtt.status).toBe(200)
    expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8')
    expect(vtt.body).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nBonjour\n')
    const part = await owner.get(`/file/${slug}/subtitles/${srtId}`, { headers: { range: 'bytes=0-5' } })
    expect([part.status, part.body, part.headers['content-range']]).toEqual([206, 'WEBVTT', 'bytes 0-5/46'])
    expect((await rawRequest(`${app.url}/file/${slug}/subtitles/${srtId}`, 'GET')).status).toBe(401)
    expectError(await app.client.get(`/file/${slug}/subtitles/${srtId}`), 404, `No file "${slug}".`)

    const removed = await owner.delete(`/file/${slug}/subtitles/${srtId}`)
    expect(removed.status).toBe(204)
    const info = xmlOf(await owner.get(`/file/${slug}`), 200).file as XmlObject
    expect(subtitlesOf(info).map((s) => s['@language'])).toEqual(['en'])
    expect(await app.kernel.services.ports.get('storage').stat(`${file.storagePrefix}subtitles/${srtId}`)).toBeNull()
    expectError(await owner.delete(`/file/${slug}/subtitles/${srtId}`), 404, `No subtitle "${srtId}".`)
  })

  it('refuses what is neither SRT nor WebVTT, a bad or missing language, a missing part (412, nothing stored)', async () => {
    const slug = text((await uploaded(owner, PDF, { filename: 'bad.pdf' })).slug)
    expectError(await add(owner, slug, { language: 'fr' }, Buffer.from('just words')), 412, INVALID, {
      subtitle: 'is neither valid SRT nor valid WebVTT: SRT cue 1: no "00:00:01,000 --> 00:00:02,000" timing line',
    })
    expectError(await add(owner, slug, { language: 'FR' }, SRT), 412, INVALID, {
      language: 'must be an ISO 639-1 code, lowercase (fr, en, ...)',
    })
    expectError(await add(owner, slug, {}, undefined), 412, INVALID, {
      language: 'is required: an ISO 639-1 code (fr, en, ...)',
      subtitle: 'send the subtitle file as the multipart file part "subtitle"',
    })
    expectError(await add(owner, slug, { language: 'xx' }, SRT, 'other'), 412, INVALID, {
      language: 'must be an ISO 639-1 code, lowercase (fr, en, ...)',
      subtitle: 'send the subtitle file as the multipart file part "subtitle"',
    })
    const info = xmlOf(await owner.get(`/file/${slug}`), 200).file as XmlObject
    expect(subtitlesOf(info)).toEqual([])
  })

  it('refuses a subtitle file over 5 MB (413)', async () => {
    const slug = text((await uploaded(owner, PDF, { filename: 'big.pdf' })).slug)
    const huge = Buffer.concat([SRT, Buffer.alloc(5 * 1024 * 1024, 'a')])
    expectError(
      await add(owner, slug, { language: 'fr' }, huge),
      413,
      'A subtitle file may hold at most 5242880 bytes.',
    )
  })

  it("another user's file is 404 (administrators included); no file.edit is 403", async () => {
    const slug = text((await uploaded(owner, PDF, { filename: 'private.pdf' })).slug)
    expectError(await add(app.client, slug, { language: 'fr' }, SRT), 404, `No file "${slug}".`)
    expectError(await app.client.delete(`/file/${slug}/subtitles/x.fr.srt`), 404, `No file "${slug}".`)
    const reader = await userWithFlags(app, 'reader-only', ['platform.view', 'file.create'])
    const own = text((await uploaded(reader, PDF, { filename: 'mine.pdf' })).slug)
    expectError(await add(reader, own, { language: 'fr' }, SRT), 403, NEEDS('file.edit'))
  })

  it('deleting the file removes its subtitles (rows and bytes)', async () => {
    const slug = text((await uploaded(owner, PDF, { filename: 'gone.pdf' })).slug)
    xmlOf(await add(owner, slug, { language: 'fr' }, SRT), 201)
    const file = (await fileQueries.fileBySlug(app.kernel.services.reader, slug))!
    expect((await owner.delete(`/file/${slug}`)).status).toBe(204)
    expect(await app.kernel.em().count('Subtitle', { file: file.id })).toBe(0)
    expect(
      await app.kernel.services.ports.get('storage').stat(`${file.storagePrefix}subtitles/${sha1(SRT)}.fr.srt`),
    ).toBeNull()
  })
})
