import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEDIA_TOKEN_PURPOSE } from '../../../plugins/encoding/index.js'
import { signToken } from '../../../src/kernel/index.js'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { fileRow } from '../files/files.helpers.js'
import {
  digestBytes,
  expectFailure,
  fileInfo,
  getBytes,
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadEncoded,
} from './encoding.helpers.js'

describe('media access: the owner, media tokens, nobody else', () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient
  let video: string
  let picture: string

  beforeAll(async () => {
    app = await startEncodingApp()
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
    ;[video, picture] = await uploadEncoded(
      alice,
      [await makeMedia('video'), 'clip.mp4'],
      [await makeMedia('png'), 'picture.png'],
    )
  })
  afterAll(async () => app?.close())

  /** The token of a media URL. */
  const tokenOf = (url: string): string => new URL(url).searchParams.get('token')!
  /** A token signed with the server secret (as the server would, or expired). */
  const sign = (file: { id: number; slug: string }, expiresAt: Date, purpose = MEDIA_TOKEN_PURPOSE) =>
    signToken(app.kernel.services.secret, purpose, { f: file.id, s: file.slug }, expiresAt)

  it('without with-token, URLs carry no token; with it, file info, listings and snapshots carry one', async () => {
    expect(text((await fileInfo(alice, video)).thumbnail)).not.toContain('token=')
    const thumbnail = text((await fileInfo(alice, video, '?with-token=1')).thumbnail)
    expect(thumbnail).toMatch(/\/thumb\.jpg\?v=\d+&token=[\w-]+\.[\w-]+$/)
    const listing = parseXml((await alice.get('/files?with-token=1')).body).files as XmlObject
    for (const file of list<XmlObject>(listing.file)) expect(text(file.thumbnail)).toContain('&token=')
    const snapshots = parseXml((await alice.get(`/file/${video}/snapshots?with-token=1`)).body).snapshots as XmlObject
    const src = list<XmlObject>(snapshots.snapshot)[4]!['@src'] as string
    expect(src).toContain('&token=')
    // Anyone holding the URL fetches it, without credentials.
    const res = await getBytes(app.url, pathOf(src))
    expect([res.status, res.headers['content-type']]).toEqual([200, 'image/jpeg'])
    expect((await getBytes(app.url, pathOf(thumbnail), { range: 'bytes=0-1' })).status).toBe(206)
    // Tokens made within the same hour are the same: the URL stays cacheable.
    expect(tokenOf(text((await fileInfo(alice, video, '?with-token=1')).thumbnail))).toBe(tokenOf(thumbnail))
  })

  it('HLS with a token: the playlists carry it in every URI, so a player fetches everything with it', async () => {
    const token = tokenOf(text((await fileInfo(alice, video, '?with-token=1')).thumbnail))
    const master = await getBytes(app.url, `/file/${video}/hls/master.m3u8?token=${token}`)
    expect([master.status, master.headers['content-type']]).toEqual([200, 'application/vnd.apple.mpegurl'])
    const uris = master.body
      .toString('utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
    expect(uris).toEqual([`240p/index.m3u8?token=${token}`, `120p/index.m3u8?token=${token}`])
    const variant = await getBytes(app.url, `/file/${video}/hls/${uris[0]}`)
    expect(variant.status).toBe(200)
    const segments = variant.body
      .toString('utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
    expect(segments.length).toBeGreaterThan(1)
    for (const segment of segments) expect(segment).toMatch(new RegExp(`^[a-z0-9_.-]+\\?token=${token}$`))
    const first = await getBytes(app.url, `/file/${video}/hls/240p/${segments[0]}`)
    expect([first.status, first.headers['content-type'], first.body[0]]).toEqual([200, 'video/mp2t', 0x47])
    const flavor = await getBytes(app.url, `/file/${video}/flavor/video/120p.mp4?token=${token}`, {
      range: 'bytes=0-7',
    })
    expect([flavor.status, flavor.body.subarray(4, 8).toString('latin1')]).toEqual([206, 'ftyp'])
  })

  it('a forged or malformed token is 401 (with a Digest challenge); an expired one, or one of another file, 403', async () => {
    const row = (await fileRow(app, video))!
    const good = sign(row, new Date(Date.now() + 3600_000))
    const path = (token: string) => `/file/${video}/thumbnail/thumb.jpg?token=${encodeURIComponent(token)}`
    expect((await getBytes(app.url, path(good))).status).toBe(200)

    const forged = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`
    for (const token of [
      forged,
      'nonsense',
      `${good.split('.')[0]}.`,
      sign(row, new Date(Date.now() + 60_000), 'upload'),
    ]) {
      const res = await getBytes(app.url, path(token))
      expectFailure({ status: res.status, body: res.body.toString('utf8') }, 401)
      expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
    }
    const expired = await getBytes(app.url, path(sign(row, new Date(Date.now() - 1000))))
    expectFailure({ status: expired.status, body: expired.body.toString('utf8') }, 403)
    expect(expired.body.toString('utf8')).toContain('This link has expired')

    const other = (await fileRow(app, picture))!
    const elsewhere = await getBytes(app.url, path(sign(other, new Date(Date.now() + 3600_000))))
    expectFailure({ status: elsewhere.status, body: elsewhere.body.toString('utf8') }, 403)
    // The slug matches but not the file (a later file under a reused slug): 404.
    const reused = await getBytes(app.url, path(sign({ id: other.id, slug: video }, new Date(Date.now() + 3600_000))))
    expect(reused.status).toBe(404)
    // A token opens media only: not the file's XML.
    expect((await getBytes(app.url, `/file/${video}?token=${good}`)).status).toBe(401)
  })

  it("another user's Digest, the administrator's too, is 404, exactly as a missing file; no credentials at all is 401", async () => {
    for (const path of [
      `/file/${video}/thumbnail/thumb.jpg`,
      `/file/${video}/snapshots/0.jpg`,
      `/file/${video}/flavor/video/240p.mp4`,
      `/file/${video}/hls/master.m3u8`,
      `/file/${video}/hls/240p/index.m3u8`,
    ]) {
      for (const client of [bob, app.client]) {
        const res = await digestBytes(client, path)
        const missing = await digestBytes(client, path.replace(video, 'no-such-file'))
        expect(res.status, path).toBe(404)
        expect(res.body.toString('utf8').replace(video, 'no-such-file')).toBe(missing.body.toString('utf8'))
      }
      const anonymous = await getBytes(app.url, path)
      expect(anonymous.status).toBe(401)
      expect(String(anonymous.headers['www-authenticate'])).toMatch(/^Digest /)
    }
    expectFailure(await bob.get(`/file/${video}/snapshots`), 404)
    expectFailure(await bob.post(`/file/${video}/snapshots`, { form: { id: '1' } }), 404)
  })

  it("a deleted file's media answer 404, to its token too", async () => {
    const [slug] = await uploadEncoded(alice, [await makeMedia('png', { size: '32x32' }), 'gone.png'])
    const thumbnail = text((await fileInfo(alice, slug, '?with-token=1')).thumbnail)
    expect((await getBytes(app.url, pathOf(thumbnail))).status).toBe(200)
    expect((await alice.delete(`/file/${slug}`)).status).toBe(204)
    expect((await getBytes(app.url, pathOf(thumbnail))).status).toBe(404)
  })
})
