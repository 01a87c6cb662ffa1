import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import {
  NO_RESOURCE,
  accessObjects,
  countRows,
  createMedia,
  createRole,
  createStream,
  expectError,
  grant,
  listedSlugs,
  published,
  uploadDocument,
  userWithProfile,
  xmlOf,
} from './resources.helpers.js'

/**
 * What goes with a resource when what holds it goes: a stream (and its sub-streams), a media,
 * the file's owner, a platform. Each resource here has a widget and an access of `fan` on it;
 * all of them must go, in the API and in the tables. The jobs do not run: nothing is encoded.
 */
describe('resources: cascades', () => {
  let app: TestApp
  let admin: DigestClient
  let watcher: string
  let paper: string

  beforeAll(async () => {
    app = await startApp({ jobs: false })
    admin = app.client
    watcher = await createRole(app, 'Watcher', ['stream.view', 'resource.view'])
    await userWithProfile(app, 'fan', 'default-viewer')
    paper = await uploadDocument(admin)
  })
  afterAll(async () => app?.close())

  /** Publishes a file into a stream as `client`, adds a widget and an access of `fan` on it; answers its slug. */
  async function furnished(stream: string, title: string, client = admin, file = paper): Promise<string> {
    const slug = await published(client, stream, { file, title, visibility: 'visible' })
    const widget = await admin.post(`/resource/${slug}/widgets`, { form: { name: `${title} widget`, size: '640x360' } })
    xmlOf(widget, 201)
    await grant(app, 'fan', 'resource', slug, watcher)
    return slug
  }

  /** The ids of resources, by slug (read before they go). */
  async function idsOf(slugs: string[]): Promise<number[]> {
    const rows = await app.kernel
      .em()
      .execute<{ id: number | string }[]>(
        `select id from resources where slug in (${slugs.map(() => '?').join(',')})`,
        slugs,
      )
    expect(rows).toHaveLength(slugs.length)
    return rows.map((row) => Number(row.id))
  }

  /** The rows left of resources (by id): the resources, their widgets, the accesses on them. */
  async function leftOf(ids: number[]): Promise<{ resources: number; widgets: number; accesses: number }> {
    const list = ids.join(',')
    return {
      resources: await countRows(app, 'resources', `id in (${list})`),
      widgets: await countRows(app, 'widgets', `resource_id in (${list})`),
      accesses: await countRows(app, 'accesses', `object_kind = 'resource' and object_id in (${list})`),
    }
  }

  const fanAccesses = async (): Promise<string[]> =>
    accessObjects(await admin.get('/user/fan/accesses')).map(([kind, slug]) => `${kind}:${slug}`)

  it('deleting a stream deletes its resources and those of its sub-streams, with their widgets and accesses', async () => {
    const media = await createMedia(admin, 'Stream cascade')
    const stream = await createStream(admin, media, 'Doomed stream')
    const sub = await createStream(admin, media, 'Doomed sub-stream', { parent_stream: stream })
    const sibling = await createStream(admin, media, 'Surviving stream')
    const gone = [await furnished(stream, 'In the stream'), await furnished(sub, 'In the sub-stream')]
    const kept = await furnished(sibling, 'In the sibling')
    const ids = await idsOf(gone)
    expect(await leftOf(ids)).toEqual({ resources: 2, widgets: 2, accesses: 2 })

    expect((await admin.delete(`/stream/${stream}`)).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    for (const slug of gone) expectError(await admin.get(`/resource/${slug}`), 404, NO_RESOURCE(slug))
    expect(await fanAccesses()).not.toContain(`resource:${gone[0]}`)
    // What was not in it stays, and so does the file.
    expect(await listedSlugs(admin, sibling)).toEqual([kept])
    expect(await fanAccesses()).toContain(`resource:${kept}`)
    expect(await leftOf(await idsOf([kept]))).toEqual({ resources: 1, widgets: 1, accesses: 1 })
    expect((await admin.get(`/file/${paper}`)).status).toBe(200)
  })

  it('deleting a sub-stream deletes its resources only', async () => {
    const media = await createMedia(admin, 'Sub-stream cascade')
    const parent = await createStream(admin, media, 'Parent stream')
    const sub = await createStream(admin, media, 'Child stream', { parent_stream: parent })
    const kept = await furnished(parent, 'In the parent')
    const gone = await furnished(sub, 'In the child')
    const ids = await idsOf([gone])
    expect((await admin.delete(`/stream/${sub}`)).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    expect(await listedSlugs(admin, parent)).toEqual([kept])
  })

  it('deleting a media deletes the resources of all its streams, with their widgets and accesses', async () => {
    const media = await createMedia(admin, 'Media cascade')
    const first = await createStream(admin, media, 'First of media')
    const second = await createStream(admin, media, 'Second of media', { visibility: 'hidden' })
    const deep = await createStream(admin, media, 'Deep of media', { parent_stream: second })
    const gone = [
      await furnished(first, 'Media one'),
      await furnished(second, 'Media two'),
      await furnished(deep, 'Media three'),
    ]
    const otherMedia = await createMedia(admin, 'Untouched media')
    const kept = await furnished(await createStream(admin, otherMedia, 'Untouched stream'), 'Untouched')
    const ids = await idsOf(gone)
    expect(await leftOf(ids)).toEqual({ resources: 3, widgets: 3, accesses: 3 })

    expect((await admin.delete(`/media/${media}`)).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    for (const slug of gone) expectError(await admin.get(`/resource/${slug}`), 404, NO_RESOURCE(slug))
    expect((await admin.get(`/resource/${kept}`)).status).toBe(200)
    expect(await fanAccesses()).toContain(`resource:${kept}`)
  })

  it("deleting a file deletes its resources in every stream, with their widgets and accesses; the file's other resources stay", async () => {
    const media = await createMedia(admin, 'File cascade')
    const one = await createStream(admin, media, 'File stream one')
    const two = await createStream(admin, media, 'File stream two')
    const doomed = await uploadDocument(admin, 'doomed.pdf')
    const gone = [await furnished(one, 'Doomed one', admin, doomed), await furnished(two, 'Doomed two', admin, doomed)]
    const kept = await furnished(one, 'Kept one')
    const ids = await idsOf(gone)
    expect((await admin.delete(`/file/${doomed}`)).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    expect(await listedSlugs(admin, one)).toEqual([kept])
    expect(await listedSlugs(admin, two)).toEqual([])
  })

  it("deleting a user deletes their files' resources, wherever published", async () => {
    const media = await createMedia(admin, 'User cascade')
    const stream = await createStream(admin, media, 'Authors')
    // A platform administrator of the default platform: publishes into any stream of it.
    const author = await app.createUser({ username: 'author' })
    const own = await uploadDocument(author, 'by-author.pdf')
    const gone = await furnished(stream, 'By the author', author, own)
    const kept = await furnished(stream, 'By the administrator')
    const ids = await idsOf([gone])
    expect((await admin.delete('/user/author')).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    expect(await listedSlugs(admin, stream)).toEqual([kept])
  })

  it("deleting a platform deletes the resources of its streams, even of another platform's files", async () => {
    const platform = text(
      xmlOf(await admin.post('/platforms', { form: { name: 'Doomed platform', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    const media = await createMedia(admin, 'Doomed platform TV', platform)
    const stream = await createStream(admin, media, 'Doomed platform stream')
    const local = await app.createUser({ username: 'local', platform })
    const localFile = await uploadDocument(local, 'local.pdf')
    const localResource = await published(local, stream, { file: localFile, title: 'Local', visibility: 'visible' })
    // The installation administrator's own file, of the default platform, published there.
    const foreign = await published(admin, stream, { file: paper, title: 'Foreign', visibility: 'visible' })
    const ids = await idsOf([localResource, foreign])
    expect((await admin.delete(`/platform/${platform}`)).status).toBe(204)
    expect(await leftOf(ids)).toEqual({ resources: 0, widgets: 0, accesses: 0 })
    expectError(await admin.get(`/resource/${foreign}`), 404, NO_RESOURCE(foreign))
    expect((await admin.get(`/file/${paper}`)).status).toBe(200)
  })
})
