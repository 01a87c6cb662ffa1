import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kernel } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { TEST_PG_URL } from '../../helpers/database.js'
import { DigestClient } from '../../helpers/digest-client.js'
import { bootOn } from '../../helpers/kernel.js'
import { list, parseXml, type XmlObject } from '../../helpers/xml.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * Two serving processes on one database, as `serve` and a second `serve` (or `--processes`)
 * are: what one changes in credentials and accesses, the other enforces within a second
 * (PostgreSQL: its caches drop on the change feed's notifications; SQLite: at its first request
 * after any commit, told by `PRAGMA data_version`). The second
 * kernel is booted in this process but shares nothing with the first but the database.
 */
describe('credentials and accesses cached per process', () => {
  let a: TestApp
  let b: Kernel
  let bDir: string
  /** carol, talking to each process. */
  let carolA: DigestClient
  let carolB: DigestClient

  /** The path of carol's access to the platform, as the administrator grants it through A. */
  const grant = async (): Promise<string> => {
    const res = await a.client.post('/user/carol/accesses', { form: { media: 'news', role: 'default-viewer' } })
    expect(res.status, res.body).toBe(201)
    return String(list<XmlObject>(parseXml(res.body).accesses.access).at(-1)!['@href']).replace(a.url, '')
  }
  /** Whether carol sees the media: 404 without an access to it (her profile gives none), 200 with one. */
  const status = async (client: DigestClient): Promise<number> => (await client.get('/media/news')).status
  /** Waits at most one second for B to answer `expected` (one second: the bound of the issue). */
  const bAnswers = (expected: number, what: string) =>
    waitFor(async () => (await status(carolB)) === expected, { timeout: 1000, interval: 20, message: what })

  beforeAll(async () => {
    a = await startApp()
    const url = a.kernel.config.database.url || `sqlite://${join(a.dataDir, 'mediactl.sqlite')}`
    bDir = mkdtempSync(join(tmpdir(), 'mediactl-second-'))
    b = await bootOn(bDir, { overrides: { database: { url }, auth: { secret: 'another-process' } } })
    const { url: bUrl } = await b.listen(0, '127.0.0.1')
    carolA = await a.createUser({ username: 'carol' })
    const viewer = await a.client.put('/user/carol', { form: { profile: 'default-viewer' } })
    expect(viewer.status, viewer.body).toBe(200)
    const media = await a.client.post('/platform/default/medias', {
      form: { name: 'News', domain_name: 'news.example.org', contact_email: 'news@example.org' },
    })
    expect(media.status, media.body).toBe(201)
    carolB = new DigestClient(bUrl, 'carol', carolA.apiKey)
    await waitFor(() => a.kernel.cachesLive && b.cachesLive, { message: 'both change feeds live' })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
    if (bDir) rmSync(bDir, { recursive: true, force: true })
  })

  it('caches serve once serving, on both databases', () => {
    expect(b.cachesLive).toBe(true)
  })

  it('an access granted in one process opens the other within a second, and a revoked one closes it', async () => {
    // Both processes read (and on PostgreSQL keep) carol's credentials and her lack of access.
    expect(await status(carolA)).toBe(404)
    for (let i = 0; i < 3; i++) expect(await status(carolB)).toBe(404)
    const access = await grant()
    await bAnswers(200, 'B to let carol see the media after the grant in A')
    for (let i = 0; i < 3; i++) expect(await status(carolB)).toBe(200)
    expect((await a.client.delete(access)).status).toBe(200)
    // The writing process answers from what it just wrote, at once.
    expect(await status(carolA)).toBe(404)
    await bAnswers(404, 'B to refuse carol after the revocation in A')
  })

  it('a user deactivated in one process is refused by the other within a second', async () => {
    await grant()
    await bAnswers(200, 'B to let carol in')
    const res = await a.client.put('/user/carol', { form: { is_active: '0' } })
    expect(res.status, res.body).toBe(200)
    expect(await status(carolA)).toBe(401)
    await bAnswers(401, 'B to refuse the deactivated carol')
    expect((await a.client.put('/user/carol', { form: { is_active: '1' } })).status).toBe(200)
    await bAnswers(200, 'B to let carol in again')
  })

  it.skipIf(!TEST_PG_URL)('while its change feed is down a process reads through, then caches again', async () => {
    const admin = new pg.Client({ connectionString: a.kernel.config.database.url })
    await admin.connect()
    try {
      // Every listener on this database: both processes lose their feed at once.
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and application_name = 'mediactl change feed'`,
      )
      await waitFor(() => !b.cachesLive, { message: "B's feed to be down" })
      const access = await grant()
      expect(await status(carolB)).toBe(200)
      expect((await a.client.delete(access)).status).toBe(200)
      expect(await status(carolB)).toBe(404)
      await waitFor(() => b.cachesLive && a.kernel.cachesLive, { message: 'both feeds back' })
      await grant()
      await bAnswers(200, 'B to see the grant made once its feed is back')
    } finally {
      await admin.end()
    }
  })
})
