import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { MP4, PDF, other, upload } from '../files/files.helpers.js'
import {
  NEEDS,
  NEEDS_ROLE,
  NO_RESOURCE,
  NO_STREAM,
  accessObjects,
  createMedia,
  createProfile,
  createRole,
  createStream,
  entriesOf,
  expectError,
  grant,
  listedSlugs,
  publish,
  published,
  resourceOf,
  uploadDocument,
  userWithProfile,
  xmlOf,
} from './resources.helpers.js'

const NO_THUMBNAIL = 'This file has no thumbnail (yet).'
const ACCESS_LIST_NEEDS = 'This needs the "user.manage_access" or "group.manage_access" permission of your profile.'

/**
 * Who sees and changes which resource. The jobs do not run here: uploaded files stay pending
 * with the type their first bytes tell (a video stays a video), and nothing is encoded.
 *
 * Campus TV holds `open` (visible) with a visible, a hidden and a draft resource, and `secret`
 * (hidden) with a visible resource and a visible sub-stream `inner` holding another.
 */
describe('resources: visibility and authorization', () => {
  let app: TestApp
  let admin: DigestClient
  let media: string
  let open: string
  let secret: string
  let inner: string
  let paper: string
  const users: Record<string, DigestClient> = {}
  const slugs = {
    public: 'public-talk',
    alsoPublic: 'also-public',
    hidden: 'hidden-talk',
    draft: 'draft-talk',
    secret: 'secret-talk',
    inner: 'inner-talk',
  }

  beforeAll(async () => {
    app = await startApp({ jobs: false })
    admin = app.client
    media = await createMedia(admin, 'Campus TV')
    open = await createStream(admin, media, 'Open')
    secret = await createStream(admin, media, 'Secret', { visibility: 'hidden' })
    inner = await createStream(admin, media, 'Inner', { parent_stream: secret })
    paper = await uploadDocument(admin)
    for (const [title, stream, visibility] of [
      ['Public talk', open, 'visible'],
      ['Also public', open, 'visible'],
      ['Hidden talk', open, 'hidden'],
      ['Draft talk', open, 'draft'],
      ['Secret talk', secret, 'visible'],
      ['Inner talk', inner, 'visible'],
    ] as const) {
      await published(admin, stream, { file: paper, title, visibility })
    }

    const watcher = await createRole(app, 'Watcher', ['stream.view', 'resource.view'])
    const insider = await createRole(app, 'Insider', [
      'stream.view',
      'stream.view_protected',
      'resource.view',
      'resource.view_protected',
    ])
    const streamInsider = await createRole(app, 'Stream insider', [
      'stream.view',
      'stream.view_protected',
      'resource.view',
    ])
    const editor = await createRole(app, 'Resource editor', ['stream.view', 'resource.view', 'resource.edit'])
    const remover = await createRole(app, 'Remover', ['stream.view', 'resource.view', 'resource.delete'])
    const contributor = await createRole(app, 'Contributor', [
      'stream.view',
      'resource.view',
      'resource.create',
      'resource.edit',
    ])
    // Uploads and publishes documents only; not videos, not other files.
    const uploader = await createProfile(app, 'Document uploader', [
      'platform.view',
      'file.create',
      'file.publish_document',
    ])

    const make = async (username: string, profile: string, grants: [string, string, string][] = []) => {
      users[username] = await userWithProfile(app, username, profile)
      for (const [kind, slug, role] of grants) await grant(app, username, kind, slug, role)
    }
    await make('viewer', 'default-viewer', [['media', media, watcher]])
    await make('insider', 'default-viewer', [['media', media, insider]])
    await make('half', 'default-viewer', [['media', media, streamInsider]])
    await make('editor', 'default-viewer', [['stream', open, editor]])
    await make('remover', 'default-viewer', [['stream', open, remover]])
    await make('single', 'default-viewer', [
      ['resource', slugs.public, watcher],
      ['resource', slugs.hidden, watcher],
    ])
    await make('stranger', 'default-viewer')
    await make('contributor', uploader, [['stream', open, contributor]])
    await make('looker', uploader, [['stream', open, watcher]])
    const rival = text(
      xmlOf(await admin.post('/platforms', { form: { name: 'Rival', max_users: 0, max_space: 0 } }), 201).platform.slug,
    )
    // The administrator of another platform (its default Administrator profile): everything there, nothing here.
    users.rival = await app.createUser({ username: 'rival-admin', platform: rival })
    users.boss = await app.createUser({ username: 'boss' })
  })
  afterAll(async () => app?.close())

  describe('visibility', () => {
    it('a viewer (resource.view, no view_protected) sees visible resources; hidden and draft ones are 404 and not listed', async () => {
      const viewer = users.viewer!
      expect(text(resourceOf(await viewer.get(`/resource/${slugs.public}`), 200).slug)).toBe(slugs.public)
      expectError(await viewer.get(`/resource/${slugs.hidden}`), 404, NO_RESOURCE(slugs.hidden))
      expectError(await viewer.get(`/resource/${slugs.draft}`), 404, NO_RESOURCE(slugs.draft))
      const res = await viewer.get(`/stream/${open}/resources`)
      expect(entriesOf(res).map((node) => text(node.slug))).toEqual([slugs.public, slugs.alsoPublic])
      expect(res.headers['content-range']).toBe('entities 0-1/2')
      // Counted as they are listed: a range past what the viewer sees is past the end.
      const past = await viewer.get(`/stream/${open}/resources`, { headers: { range: 'entities=2-3' } })
      expect([past.status, past.headers['content-range']]).toEqual([200, 'entities */2'])
    })

    it('with resource.view_protected, hidden and draft resources are shown and listed', async () => {
      const insider = users.insider!
      for (const slug of [slugs.hidden, slugs.draft, slugs.secret, slugs.inner]) {
        expect(text(resourceOf(await insider.get(`/resource/${slug}`), 200).slug)).toBe(slug)
      }
      expect(await listedSlugs(insider, open)).toEqual([slugs.public, slugs.alsoPublic, slugs.hidden, slugs.draft])
      expect(await listedSlugs(insider, secret)).toEqual([slugs.secret])
      expect(await listedSlugs(insider, inner)).toEqual([slugs.inner])
      // So does the administrator of the platform, without any access.
      expect(await listedSlugs(users.boss!, open)).toEqual([slugs.public, slugs.alsoPublic, slugs.hidden, slugs.draft])
    })

    it('a visible resource inside a hidden stream (or a visible sub-stream of it) is 404 for the viewer, and so are the lists', async () => {
      const viewer = users.viewer!
      expectError(await viewer.get(`/resource/${slugs.secret}`), 404, NO_RESOURCE(slugs.secret))
      expectError(await viewer.get(`/resource/${slugs.inner}`), 404, NO_RESOURCE(slugs.inner))
      expectError(await viewer.get(`/stream/${secret}/resources`), 404, NO_STREAM(secret))
      expectError(await viewer.get(`/stream/${inner}/resources`), 404, NO_STREAM(inner))
    })

    it('seeing a hidden stream (stream.view_protected) without resource.view_protected: its resources are not public, neither shown nor listed', async () => {
      const half = users.half!
      expect((await half.get(`/stream/${secret}`)).status).toBe(200)
      expectError(await half.get(`/resource/${slugs.secret}`), 404, NO_RESOURCE(slugs.secret))
      expectError(await half.get(`/resource/${slugs.inner}`), 404, NO_RESOURCE(slugs.inner))
      // The list agrees with the info: what one may not open is not listed.
      const res = await half.get(`/stream/${secret}/resources`)
      expect([entriesOf(res), res.headers['content-range']]).toEqual([[], 'entities */0'])
      expect(await listedSlugs(half, inner)).toEqual([])
      expect(await listedSlugs(half, open)).toEqual([slugs.public, slugs.alsoPublic])
    })

    it('an access on one resource opens that resource only (not its siblings, not the stream), and never a hidden one', async () => {
      const single = users.single!
      expect((await single.get(`/resource/${slugs.public}`)).status).toBe(200)
      expectError(await single.get(`/resource/${slugs.alsoPublic}`), 404, NO_RESOURCE(slugs.alsoPublic))
      expectError(await single.get(`/resource/${slugs.hidden}`), 404, NO_RESOURCE(slugs.hidden))
      expectError(await single.get(`/stream/${open}/resources`), 404, NO_STREAM(open))
    })

    it('a user without any access sees nothing: 404', async () => {
      const stranger = users.stranger!
      expectError(await stranger.get(`/resource/${slugs.public}`), 404, NO_RESOURCE(slugs.public))
      expectError(await stranger.get(`/stream/${open}/resources`), 404, NO_STREAM(open))
      expectError(
        await stranger.put(`/resource/${slugs.public}`, { form: { title: 'x' } }),
        404,
        NO_RESOURCE(slugs.public),
      )
      expectError(await stranger.delete(`/resource/${slugs.public}`), 404, NO_RESOURCE(slugs.public))
    })
  })

  describe('changes', () => {
    it('PUT without resource.edit: 403; DELETE without resource.delete: 403; nothing changes', async () => {
      const viewer = users.viewer!
      const before = (await admin.get(`/resource/${slugs.public}`)).body
      expectError(
        await viewer.put(`/resource/${slugs.public}`, { form: { title: 'Mine' } }),
        403,
        NEEDS_ROLE('resource.edit'),
      )
      expectError(await viewer.delete(`/resource/${slugs.public}`), 403, NEEDS_ROLE('resource.delete'))
      // On what they may not see, 404 rather than 403.
      expectError(
        await viewer.put(`/resource/${slugs.hidden}`, { form: { title: 'Mine' } }),
        404,
        NO_RESOURCE(slugs.hidden),
      )
      expectError(await viewer.delete(`/resource/${slugs.hidden}`), 404, NO_RESOURCE(slugs.hidden))
      expect((await admin.get(`/resource/${slugs.public}`)).body).toBe(before)
    })

    it('resource.edit allows PUT, not DELETE; resource.delete allows DELETE, not PUT', async () => {
      const target = await published(admin, open, { file: paper, title: 'Shared work', visibility: 'visible' })
      const editor = users.editor!
      const edited = resourceOf(
        await editor.put(`/resource/${target}`, { form: { title: 'Edited', visibility: 'visible' } }),
        200,
      )
      expect(text(edited.title)).toBe('Edited')
      expectError(await editor.delete(`/resource/${target}`), 403, NEEDS_ROLE('resource.delete'))
      // The editor cannot re-point it to a file that is not theirs (files are private).
      expectError(
        await editor.put(`/resource/${target}`, { form: { file: paper } }),
        412,
        'The submitted data is invalid.',
        {
          file: `you have no file "${paper}" (only your own files can be published)`,
        },
      )
      expectError(
        await editor.put(`/resource/${slugs.hidden}`, { form: { title: 'x' } }),
        404,
        NO_RESOURCE(slugs.hidden),
      )
      const remover = users.remover!
      expectError(
        await remover.put(`/resource/${target}`, { form: { title: 'Removed?' } }),
        403,
        NEEDS_ROLE('resource.edit'),
      )
      expect((await remover.delete(`/resource/${target}`)).status).toBe(204)
      expectError(await admin.get(`/resource/${target}`), 404, NO_RESOURCE(target))
    })

    it('publishing needs resource.create on the stream: 403 for a user who sees it without, 404 for one who does not see it', async () => {
      const looker = users.looker!
      const own = await uploadDocument(looker, 'looker.pdf')
      expectError(
        await publish(looker, open, { file: own, title: 'Mine', visibility: 'visible' }),
        403,
        NEEDS_ROLE('resource.create'),
      )
      expectError(
        await publish(looker, secret, { file: own, title: 'Mine', visibility: 'visible' }),
        404,
        NO_STREAM(secret),
      )
      expectError(
        await publish(users.stranger!, open, { file: own, title: 'Mine', visibility: 'visible' }),
        404,
        NO_STREAM(open),
      )
      expect(await listedSlugs(admin, open)).not.toContain('mine')
    })

    it('publishing needs the file.publish_<type> flag of the profile for the file type: 403 for a video without file.publish_video', async () => {
      const contributor = users.contributor!
      const upload1 = await upload(contributor, MP4, { filename: 'clip.mp4' })
      const video = xmlOf(upload1, 200).file
      expect(text(video.type)).toBe('video')
      expectError(
        await publish(contributor, open, { file: text(video.slug), title: 'My clip', visibility: 'visible' }),
        403,
        NEEDS('file.publish_video'),
      )
      const binary = text(xmlOf(await upload(contributor, other(64), { filename: 'data.bin' }), 200).file.slug)
      expectError(
        await publish(contributor, open, { file: binary, title: 'My data', visibility: 'visible' }),
        403,
        NEEDS('file.publish_binary'),
      )
      // A document: published (pending: the jobs do not run here, and a pending file may be published).
      const document = text(xmlOf(await upload(contributor, PDF, { filename: 'notes.pdf' }), 200).file.slug)
      const slug = await published(contributor, open, { file: document, title: 'My notes', visibility: 'visible' })
      // Moving it onto the video: the same 403, and nothing changes.
      expectError(
        await contributor.put(`/resource/${slug}`, { form: { file: text(video.slug) } }),
        403,
        NEEDS('file.publish_video'),
      )
      expect(resourceOf(await admin.get(`/resource/${slug}`), 200).file).toEqual({
        '@href': `${app.url}/file/${document}`,
      })
      expect(await listedSlugs(admin, open)).not.toContain('my-clip')
    })
  })

  describe('resource media and accesses follow the same rules', () => {
    it('the thumbnail of a resource the viewer may not see: 404 naming the resource', async () => {
      const viewer = users.viewer!
      // A visible document: past the resource check, there is no thumbnail to serve.
      expectError(await viewer.get(`/resource/${slugs.public}/thumbnail/thumb.jpg`), 404, NO_THUMBNAIL)
      for (const slug of [slugs.hidden, slugs.draft, slugs.secret]) {
        expectError(await viewer.get(`/resource/${slug}/thumbnail/thumb.jpg`), 404, NO_RESOURCE(slug))
        expectError(await viewer.get(`/resource/${slug}/flavor/video/240p.mp4`), 404, NO_RESOURCE(slug))
        expectError(await viewer.get(`/resource/${slug}/hls/master.m3u8`), 404, NO_RESOURCE(slug))
        expectError(await viewer.get(`/resource/${slug}/subtitles/x.fr.srt`), 404, NO_RESOURCE(slug))
        expectError(await viewer.get(`/resource/${slug}/source`), 404, NO_RESOURCE(slug))
        // Nor a token for it.
        expectError(await viewer.get(`/resource/${slug}?with-token=1`), 404, NO_RESOURCE(slug))
      }
      expectError(await users.insider!.get(`/resource/${slugs.hidden}/thumbnail/thumb.jpg`), 404, NO_THUMBNAIL)
      expectError(
        await users.stranger!.get(`/resource/${slugs.public}/thumbnail/thumb.jpg`),
        404,
        NO_RESOURCE(slugs.public),
      )
    })

    it('the accesses of a resource: listed for the administrator; a hidden resource is 404 for the viewer, as its info is', async () => {
      expect(accessObjects(await admin.get(`/resource/${slugs.public}/accesses`))).toEqual([['resource', slugs.public]])
      expectError(await users.viewer!.get(`/resource/${slugs.public}/accesses`), 403, ACCESS_LIST_NEEDS)
      expectError(await users.viewer!.get(`/resource/${slugs.hidden}/accesses`), 404, NO_RESOURCE(slugs.hidden))
      expectError(await users.viewer!.get(`/resource/${slugs.secret}/accesses`), 404, NO_RESOURCE(slugs.secret))
    })
  })

  it('users of another platform: 404 everywhere, even its administrator', async () => {
    const rival = users.rival!
    const own = await uploadDocument(rival, 'rival.pdf')
    expectError(await rival.get(`/resource/${slugs.public}`), 404, NO_RESOURCE(slugs.public))
    expectError(await rival.get(`/resource/${slugs.public}?with-token=1`), 404, NO_RESOURCE(slugs.public))
    expectError(
      await rival.put(`/resource/${slugs.public}`, { form: { title: 'Ours' } }),
      404,
      NO_RESOURCE(slugs.public),
    )
    expectError(await rival.delete(`/resource/${slugs.public}`), 404, NO_RESOURCE(slugs.public))
    expectError(await rival.get(`/resource/${slugs.public}/accesses`), 404, NO_RESOURCE(slugs.public))
    expectError(await rival.get(`/resource/${slugs.public}/thumbnail/thumb.jpg`), 404, NO_RESOURCE(slugs.public))
    expectError(await rival.get(`/resource/${slugs.public}/source`), 404, NO_RESOURCE(slugs.public))
    expectError(await rival.get(`/stream/${open}/resources`), 404, NO_STREAM(open))
    expectError(await publish(rival, open, { file: own, title: 'Ours', visibility: 'visible' }), 404, NO_STREAM(open))
    expect((await admin.get(`/resource/${slugs.public}`)).status).toBe(200)
  })

  it('without credentials: 401 with a Digest challenge, on every route (even for a resource that does not exist)', async () => {
    for (const [method, path] of [
      ['GET', `/resource/${slugs.public}`],
      ['PUT', `/resource/${slugs.public}`],
      ['DELETE', `/resource/${slugs.public}`],
      ['GET', `/resource/${slugs.public}/accesses`],
      ['GET', `/resource/${slugs.hidden}/thumbnail/thumb.jpg`],
      ['GET', '/resource/no-such-resource/thumbnail/thumb.jpg'],
      ['GET', `/resource/${slugs.public}/source`],
      ['GET', `/stream/${open}/resources`],
      ['POST', `/stream/${open}/resources`],
      ['GET', '/resource/no-such-resource'],
    ] as const) {
      const res = await rawRequest(`${app.url}${path}`, method)
      expect([method, path, res.status]).toEqual([method, path, 401])
      expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
    }
  })
})
