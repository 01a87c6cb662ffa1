import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEDIA_TOKEN_PURPOSE } from '../../../plugins/encoding/index.js'
import { signToken } from '../../../src/kernel/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { fileRow } from '../files/files.helpers.js'
import { xmlOf } from '../identity/permissions.fixtures.js'
import { sessionThroughLink } from '../console/console.helpers.js'
import { createPlatform } from '../players/players.helpers.js'
import {
  digestBytes,
  fileInfo,
  getBytes,
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadEncoded,
} from './encoding.helpers.js'

/**
 * `GET /file/<slug>/renditions` and `GET /file/<slug>/source` (extensions of the contract for the console's file page,
 * decision 0260): what there is to play and download, to the owner only; the original's bytes to the owner or a media
 * token of the file, as the file's other media.
 */
describe("a file's renditions and its original", { timeout: 120_000 }, () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient
  let mallory: DigestClient
  let videoBytes: Buffer
  let video: string
  let sound: string

  beforeAll(async () => {
    app = await startEncodingApp()
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
    mallory = await app.createUser({ username: 'mallory', platform: await createPlatform(app.client, 'Elsewhere') })
    videoBytes = await makeMedia('video')
    ;[video, sound] = await uploadEncoded(
      alice,
      [videoBytes, 'Cours "été" 1.mp4'],
      [await makeMedia('audio'), 'talk.m4a'],
    )
  }, 120_000)
  afterAll(async () => app?.close())

  const renditions = async (slug: string, query = ''): Promise<XmlObject> =>
    xmlOf(await alice.get(`/file/${slug}/renditions${query}`), 200).renditions as XmlObject

  it('lists the original, the flavors largest first with their frame and length, and the HLS playlist', async () => {
    const answer = await renditions(video)
    expect(answer['@href']).toBe(`${app.url}/file/${video}/renditions`)
    const source = answer.source as XmlObject
    expect(source).toMatchObject({
      '@src': `${app.url}/file/${video}/source`,
      '@type': 'video/mp4',
      '@size': String(videoBytes.length),
    })
    const flavors = list<XmlObject>(answer.flavor)
    expect(flavors.map((flavor) => [flavor['@name'], flavor['@type'], flavor['@width'], flavor['@height']])).toEqual([
      ['240p', 'video/mp4', '320', '240'],
      ['120p', 'video/mp4', '160', '120'],
    ])
    expect(Number(flavors[0]!['@duration'])).toBeCloseTo(2, 0)
    expect(flavors[0]!['@src']).toMatch(new RegExp(`/file/${video}/flavor/video/240p\\.mp4\\?v=\\d+$`))
    expect((answer.hls as XmlObject)['@src']).toMatch(/\/hls\/master\.m3u8\?v=\d+$/)
    // Each URL is the owner's to fetch.
    const flavor = await digestBytes(alice, pathOf(flavors[0]!['@src'] as string))
    expect([flavor.status, flavor.headers['content-type']]).toEqual([200, 'video/mp4'])
  })

  it('lists the sound flavors with their own extension', async () => {
    const flavors = list<XmlObject>((await renditions(sound)).flavor)
    expect(flavors.map((flavor) => pathOf(flavor['@src'] as string).replace(/\?.*/, ''))).toEqual([
      `/file/${sound}/flavor/audio/aac.m4a`,
      `/file/${sound}/flavor/audio/mp3.mp3`,
    ])
  })

  it('downloads the original to its owner, as an attachment named after the file, with byte ranges', async () => {
    const whole = await digestBytes(alice, `/file/${video}/source`)
    expect(whole.status).toBe(200)
    expect(whole.body.equals(videoBytes)).toBe(true)
    // The name as stored (an upload's name is made harmless), in ASCII and in full (RFC 6266).
    const name = text((await fileInfo(alice, video)).name)
    expect(whole.headers['content-disposition']).toBe(
      `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    )
    const part = await digestBytes(alice, `/file/${video}/source`, { range: 'bytes=0-9' })
    expect([part.status, part.body.length]).toEqual([206, 10])
  })

  it('with-token: every URL carries the media token, which opens them without credentials', async () => {
    const answer = await renditions(video, '?with-token=1')
    const source = (answer.source as XmlObject)['@src'] as string
    expect(source).toMatch(/\/source\?token=[\w-]+\.[\w-]+$/)
    for (const flavor of list<XmlObject>(answer.flavor)) expect(flavor['@src']).toContain('&token=')
    const res = await getBytes(app.url, pathOf(source))
    expect(res.status).toBe(200)
    expect(res.body.equals(videoBytes)).toBe(true)
    // A media token opens media only: the renditions list (XML) still needs the owner's credentials.
    const token = new URL(source).searchParams.get('token')!
    expect((await getBytes(app.url, `/file/${video}/renditions?token=${token}`)).status).toBe(401)
  })

  it('refuses without credentials (401), a forged token (401), a token of another file (403)', async () => {
    expect((await getBytes(app.url, `/file/${video}/source`)).status).toBe(401)
    expect((await getBytes(app.url, `/file/${video}/renditions`)).status).toBe(401)
    expect((await getBytes(app.url, `/file/${video}/source?token=forged.token`)).status).toBe(401)
    const other = (await fileRow(app, sound))!
    const token = signToken(
      app.kernel.services.secret,
      MEDIA_TOKEN_PURPOSE,
      { f: other.id, s: other.slug },
      new Date(Date.now() + 3600_000),
    )
    expect((await getBytes(app.url, `/file/${video}/source?token=${token}`)).status).toBe(403)
  })

  it("is nobody else's: another user, another platform's, an administrator and an unknown slug get 404", async () => {
    for (const path of [`/file/${video}/renditions`, `/file/${video}/source`]) {
      expect([
        (await bob.get(path)).status,
        (await mallory.get(path)).status,
        (await app.client.get(path)).status,
      ]).toEqual([404, 404, 404])
    }
    expect((await alice.get('/file/no-such-file/renditions')).status).toBe(404)
    expect((await alice.get('/file/no-such-file/source')).status).toBe(404)
  })

  it("a console session's cookie alone, as a <video src> sends it, opens no media: the page uses media tokens", async () => {
    const { cookie, csrf } = await sessionThroughLink(app, 'alice')
    const sameSite = { cookie, 'sec-fetch-site': 'same-origin' }
    // The kernel's rule stands (decision 0257): no CSRF header, no session, even for a same-origin media GET.
    expect((await getBytes(app.url, `/file/${video}/source`, sameSite)).status).toBe(403)
    expect((await getBytes(app.url, `/file/${video}/flavor/video/240p.mp4`, sameSite)).status).toBe(403)
    // The page asks with its header, and gets URLs carrying the file's media token.
    const asked = await getBytes(app.url, `/file/${video}/renditions?with-token=1`, {
      ...sameSite,
      'x-mediactl-csrf': csrf,
    })
    expect(asked.status).toBe(200)
    const src = /<flavor name="240p" src="([^"]+)"/.exec(asked.body.toString())![1]!.replace(/&amp;/g, '&')
    // The token is the credential (a bearer link, as for any player: docs/api/encoding.md), whoever sends it.
    expect((await getBytes(app.url, pathOf(src), { 'sec-fetch-site': 'cross-site' })).status).toBe(200)
    // Another user's session gets nothing of it.
    const bobs = await sessionThroughLink(app, 'bob')
    const other = { cookie: bobs.cookie, 'sec-fetch-site': 'same-origin', 'x-mediactl-csrf': bobs.csrf }
    expect((await getBytes(app.url, `/file/${video}/renditions?with-token=1`, other)).status).toBe(404)
  })
})
