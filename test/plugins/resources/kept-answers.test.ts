import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type SecondProcess, secondProcessOf } from '../../helpers/second-process.js'
import { waitFor } from '../../helpers/wait.js'
import { list, parseXml, type XmlObject } from '../../helpers/xml.js'
import { publishingDataOn, viewerOn } from './publishing-data.helpers.js'

/**
 * Whole answers of resource info, a stream's resources and platform info, kept per caller in
 * each serving process on PostgreSQL (answer-cache.ts) until a table they read changes: a
 * repeat costs no statement; a change made through the other process, or any SQL session,
 * shows within a second; callers never see each other's answers; revoked rights are refused
 * within a second; answers with expiring links are never kept. Both databases (SQLite's feed is
 * `PRAGMA data_version`, asked at each request).
 */
describe('answers kept per caller until what they read changes', () => {
  let a: TestApp
  let b: SecondProcess
  let adminB: DigestClient
  let viewerB: DigestClient
  let otherB: DigestClient
  let data: { media: string; stream: string; resource: string; fileSlug: string }
  let accessPath: string
  const within = { timeout: 1000, interval: 20 }

  /** Statements B's reader ran while `request` was answered. */
  const statementsOf = async (request: () => Promise<unknown>): Promise<number> => {
    const before = b.kernel.services.reader.executed
    await request()
    return b.kernel.services.reader.executed - before
  }
  const ok = async (client: DigestClient, path: string, headers?: Record<string, string>): Promise<string> => {
    const res = await client.get(path, { headers })
    expect(res.status, res.body).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    a = await startApp()
    data = await publishingDataOn(a, 6)
    const viewerKey = await viewerOn(a, data.media, 'vera')
    const accesses = await a.client.get('/user/vera/accesses')
    accessPath = String(list<XmlObject>(parseXml(accesses.body).accesses.access).at(-1)!['@href']).replace(a.url, '')
    // A user of the same platform without any access to the media.
    const other = await a.createUser({ username: 'otto' })
    expect((await a.client.put('/user/otto', { form: { profile: 'default-viewer' } })).status).toBe(200)
    b = await secondProcessOf(a)
    adminB = b.client('admin', a.admin.apiKey)
    viewerB = b.client('vera', viewerKey)
    otherB = b.client('otto', other.apiKey)
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('a repeated read costs no statement, and answers the same bytes', async () => {
    const paths = [
      `/resource/${data.resource}`,
      `/stream/${data.stream}/resources`,
      '/platform/default',
      `/file/${data.fileSlug}`,
      '/user/vera',
    ]
    for (const path of paths) {
      const first = await adminB.get(path)
      expect(first.status, first.body).toBe(200)
      let again: Awaited<ReturnType<DigestClient['get']>> | undefined
      const statements = await statementsOf(async () => (again = await adminB.get(path)))
      expect(again!.body).toBe(first.body)
      expect(again!.headers['content-type']).toBe(first.headers['content-type'])
      expect(statements, path).toBe(0)
    }
  })

  it('pages of one list are kept apart, each with its own Content-Range', async () => {
    const page = async (range: string) => {
      const res = await adminB.get(`/stream/${data.stream}/resources`, { headers: { Range: `entities=${range}` } })
      expect(res.status, res.body).toBe(200)
      return { body: res.body, range: res.headers['content-range'] }
    }
    const first = await page('0-1')
    const second = await page('2-3')
    expect(first.range).toBe('entities 0-1/6')
    expect(second.range).toBe('entities 2-3/6')
    expect(second.body).not.toBe(first.body)
    expect(await page('0-1')).toEqual(first)
    expect(await page('2-3')).toEqual(second)
  })

  it("a resource changed through the other process, or by any SQL session, shows within a second; the writer's own process at once", async () => {
    const path = `/resource/${data.resource}`
    for (let i = 0; i < 3; i++) expect(await ok(adminB, path)).toContain('<views>0</views>')
    // A play counted as psql would: the triggers tell every process.
    await a.kernel.em().getKnex()('resources').where({ slug: data.resource }).update({ views: 7 })
    await waitFor(async () => (await ok(adminB, path)).includes('<views>7</views>'), {
      ...within,
      message: 'B shows 7 views',
    })
    const renamed = await a.client.put(path, { form: { title: 'Renamed on A' } })
    expect(renamed.status, renamed.body).toBe(200)
    await waitFor(async () => (await ok(adminB, path)).includes('Renamed on A'), {
      ...within,
      message: 'B shows the title',
    })
    // A change made through B is in B's next answer, before any notification comes back.
    const onB = await adminB.put(path, { form: { title: 'Renamed on B' } })
    expect(onB.status, onB.body).toBe(200)
    expect(await ok(adminB, path)).toContain('Renamed on B')
    // The list shows it too.
    expect(await ok(adminB, `/stream/${data.stream}/resources`)).toContain('Renamed on B')
  })

  it('file info and user info changed in the other process, or by any SQL session, show within a second', async () => {
    const file = `/file/${data.fileSlug}`
    for (let i = 0; i < 3; i++) await ok(adminB, file)
    const renamed = await a.client.put(file, { form: { name: 'Renamed lecture' } })
    expect(renamed.status, renamed.body).toBe(200)
    await waitFor(async () => (await ok(adminB, file)).includes('Renamed lecture'), {
      ...within,
      message: 'B shows the name',
    })
    for (let i = 0; i < 3; i++) expect(await ok(adminB, '/user/vera')).not.toContain('vera@renamed.example.org')
    await a.kernel.em().getKnex()('users').where({ username: 'vera' }).update({ email: 'vera@renamed.example.org' })
    await waitFor(async () => (await ok(adminB, '/user/vera')).includes('vera@renamed.example.org'), {
      ...within,
      message: 'B shows the e-mail',
    })
  })

  it("a caller never gets another caller's kept answer", async () => {
    const path = `/resource/${data.resource}`
    await ok(adminB, path)
    await ok(adminB, path)
    await ok(adminB, `/stream/${data.stream}/resources`)
    await ok(adminB, `/file/${data.fileSlug}`)
    // Otto has no access to the media: not found however often the administrator's answers were served.
    for (let i = 0; i < 2; i++) {
      expect((await otherB.get(path)).status).toBe(404)
      expect((await otherB.get(`/stream/${data.stream}/resources`)).status).toBe(404)
      // Nor does he see the administrator's file.
      expect((await otherB.get(`/file/${data.fileSlug}`)).status).toBe(404)
    }
  })

  it("a viewer's kept answers are refused within a second once the access is revoked in the other process", async () => {
    const path = `/resource/${data.resource}`
    for (let i = 0; i < 3; i++) await ok(viewerB, path)
    expect(await statementsOf(() => ok(viewerB, path))).toBe(0)
    const revoked = await a.client.delete(accessPath)
    expect(revoked.status, revoked.body).toBe(200)
    await waitFor(async () => (await viewerB.get(path)).status === 404, { ...within, message: 'B refuses vera' })
  })

  it('answers holding expiring links (with-token) are made anew each time', async () => {
    const path = `/resource/${data.resource}?with-token=1`
    await ok(adminB, path)
    expect(await statementsOf(() => ok(adminB, path))).toBeGreaterThan(0)
  })
})
