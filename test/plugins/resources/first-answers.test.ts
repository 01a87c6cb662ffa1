import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type SecondProcess, secondProcessOf } from '../../helpers/second-process.js'
import { waitFor } from '../../helpers/wait.js'
import { parseXml, text } from '../../helpers/xml.js'
import { publishingDataOn } from './publishing-data.helpers.js'

/**
 * A first answer of the most read routes is
 * one statement once the lookups other plugins own are kept per process (streams by slug, files,
 * widgets, renditions, subtitles, definitions, platform counts): a stream's page reads its count
 * with its rows. Each of those lookups shows a change made through the other process, or by any
 * SQL session, within a second. Both databases.
 */
describe('first answers: one statement each, lookups kept until they change', () => {
  let a: TestApp
  let b: SecondProcess
  let adminB: DigestClient
  let data: { media: string; stream: string; resource: string; fileSlug: string }
  const within = { timeout: 1000, interval: 20 }

  const ok = async (path: string, headers?: Record<string, string>): Promise<string> => {
    const res = await adminB.get(path, { headers })
    expect(res.status, res.body).toBe(200)
    return res.body
  }
  /** B's statements while it answered `path` a second time (the first fills the lookups). */
  const statementsOf = async (path: string, headers?: Record<string, string>): Promise<number> => {
    const first = await ok(path, headers)
    const before = b.kernel.services.reader.executed
    expect(await ok(path, headers)).toBe(first)
    return b.kernel.services.reader.executed - before
  }

  beforeAll(async () => {
    a = await startApp()
    data = await publishingDataOn(a, 60)
    b = await secondProcessOf(a)
    adminB = b.client('admin', a.admin.apiKey)
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('resource info, a deep page, file info, user info and platform info: one statement each', async () => {
    const counts = {
      resource: await statementsOf(`/resource/${data.resource}`),
      page: await statementsOf(`/stream/${data.stream}/resources`, { Range: 'entities=40-49' }),
      file: await statementsOf(`/file/${data.fileSlug}`),
      user: await statementsOf('/user/admin'),
      platform: await statementsOf('/platform/default'),
    }
    expect(counts).toEqual({ resource: 1, page: 1, file: 1, user: 1, platform: 1 })
  })

  it('a page past the end, or a malformed Range, answers as before from the same statement', async () => {
    const past = await adminB.get(`/stream/${data.stream}/resources`, { headers: { Range: 'entities=60-69' } })
    expect(past.status, past.body).toBe(200)
    expect(past.headers['content-range']).toBe('entities */60')
    const malformed = await adminB.get(`/stream/${data.stream}/resources`, { headers: { Range: 'entities=x' } })
    expect(malformed.status).toBe(416)
    expect(malformed.headers['content-range']).toBe('entities */60')
    const last = await adminB.get(`/stream/${data.stream}/resources`, { headers: { Range: 'entities=55-' } })
    expect(last.headers['content-range']).toBe('entities 55-59/60')
  })

  it('a stream made in the other process is found within a second, though its slug answered 404 before', async () => {
    const path = '/stream/evening-talks/resources'
    for (let i = 0; i < 2; i++) expect((await adminB.get(path)).status).toBe(404)
    const made = await a.client.post(`/media/${data.media}/streams`, {
      form: { title: 'Evening talks', visibility: 'visible' },
    })
    expect(made.status, made.body).toBe(201)
    expect(text(parseXml(made.body).stream.slug)).toBe('evening-talks')
    await waitFor(async () => (await adminB.get(path)).status === 200, { ...within, message: 'B finds the stream' })
    expect((await adminB.get(path)).headers['content-range']).toBe('entities */0')
  })

  it('a widget made in the other process shows in resource info within a second', async () => {
    const path = `/resource/${data.resource}`
    expect(await ok(path)).not.toContain('Lobby screen')
    const made = await a.client.post(`${path}/widgets`, { form: { name: 'Lobby screen', size: '640x360' } })
    expect(made.status, made.body).toBe(201)
    await waitFor(async () => (await ok(path)).includes('Lobby screen'), { ...within, message: 'B lists the widget' })
  })

  it("a file's value set in the other process shows in its resource's answer and its file info within a second", async () => {
    const definition = await a.client.post('/platform/default/metadata', {
      form: { type: 'varchar', name: 'Room', file_type: 'video' },
    })
    expect(definition.status, definition.body).toBe(201)
    const path = `/resource/${data.resource}`
    await waitFor(async () => (await ok(path)).includes('name="Room"') === false, within)
    const set = await a.client.put(`/file/${data.fileSlug}`, { form: { 'metadata[Room]': 'Aula 3' } })
    expect(set.status, set.body).toBe(200)
    await waitFor(async () => (await ok(path)).includes('Aula 3'), { ...within, message: 'B shows the value' })
    await waitFor(async () => (await ok(`/file/${data.fileSlug}`)).includes('Aula 3'), within)
  })

  it("a file info's thumbnail follows its renditions, changed by any SQL session, within a second", async () => {
    const thumbnail = () => ok(`/file/${data.fileSlug}`).then((body) => text(parseXml(body).file.thumbnail))
    const before = await thumbnail()
    expect(before).toContain('/thumbnail/')
    const knex = a.kernel.em().getKnex()
    await knex('renditions').where({ kind: 'snapshot' }).update({ selected: false })
    await knex('renditions').where({ kind: 'thumbnail' }).update({ kind: 'hidden-thumbnail' })
    try {
      await waitFor(async () => (await thumbnail()) === '', { ...within, message: 'B shows no thumbnail' })
    } finally {
      await knex('renditions').where({ kind: 'hidden-thumbnail' }).update({ kind: 'thumbnail' })
    }
    await waitFor(async () => (await thumbnail()) !== '', within)
  })

  it("platform info's user count and used space follow users and files, changed anywhere, within a second", async () => {
    const stats = async () => {
      const platform = parseXml(await ok('/platform/default')).platform
      return { users: Number(text(platform.created_users)), space: Number(text(platform.used_space)) }
    }
    const before = await stats()
    await a.createUser({ username: 'newcomer' })
    await waitFor(async () => (await stats()).users === before.users + 1, { ...within, message: 'B counts the user' })
    await a.kernel.em().getKnex()('files').where({ slug: data.fileSlug }).increment('stored_bytes', 1000)
    await waitFor(async () => (await stats()).space === before.space + 1000, { ...within, message: 'B adds the bytes' })
  })
})
