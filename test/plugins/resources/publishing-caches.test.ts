import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type SecondProcess, secondProcessOf } from '../../helpers/second-process.js'
import { waitFor } from '../../helpers/wait.js'
import { publishingDataOn, viewerOn } from './publishing-data.helpers.js'

/**
 * What every resource answer shows from rarely changed rows, kept per process on PostgreSQL
 * (a platform's metadata definitions, a media's online channel types, streams' visibility, a
 * file's shown renditions and subtitles): a change made through one serving process, or any
 * SQL session, shows in the other's answers within a second (SQLite reads through).
 */
describe('what every resource answer reads of rarely changed rows, cached per process', () => {
  let a: TestApp
  let b: SecondProcess
  let adminB: DigestClient
  let data: { media: string; stream: string; resource: string }
  /** A viewer of the media (no view_protected), talking to B. */
  let viewerB: DigestClient

  const infoOnB = async (): Promise<string> => {
    const res = await adminB.get(`/resource/${data.resource}`)
    expect(res.status, res.body).toBe(200)
    return res.body
  }
  /** Waits at most one second (the bound) for B's resource info to satisfy `test`. */
  const bShows = (test: (body: string) => boolean, what: string) =>
    waitFor(async () => test(await infoOnB()), { timeout: 1000, interval: 20, message: what })

  beforeAll(async () => {
    a = await startApp()
    data = await publishingDataOn(a, 3)
    const viewerKey = await viewerOn(a, data.media, 'vera')
    b = await secondProcessOf(a)
    adminB = b.client('admin', a.admin.apiKey)
    viewerB = b.client('vera', viewerKey)
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('a definition renamed in one process is named anew by the other within a second', async () => {
    // B reads (and on PostgreSQL keeps) the definitions.
    for (let i = 0; i < 3; i++) expect(await infoOnB()).toContain('<speaker name="Speaker">')
    const res = await a.client.put('/metadata/speaker', { form: { name: 'Lecturer' } })
    expect(res.status, res.body).toBe(200)
    await bShows((body) => body.includes('name="Lecturer"') && !body.includes('name="Speaker"'), 'the new name on B')
  })

  it("a media's channels taken offline in one process drop its flavors and player from the other's answers within a second", async () => {
    for (let i = 0; i < 3; i++) expect(await infoOnB()).toContain('<flavor name="1080p">')
    for (const channel of ['web', 'widget']) {
      const res = await a.client.put(`/media/${data.media}/channel/${data.media}-${channel}`, {
        form: { is_online: '0' },
      })
      expect(res.status, res.body).toBe(201)
    }
    await bShows((body) => !body.includes('<flavor ') && !body.includes('<player '), 'no flavor nor player on B')
    const back = await a.client.put(`/media/${data.media}/channel/${data.media}-web`, { form: { is_online: '1' } })
    expect(back.status, back.body).toBe(201)
    await bShows((body) => body.includes('<flavor name="1080p">'), 'the flavors back on B')
  })

  it('a stream hidden in one process hides its resources from viewers of the other within a second, and shown again', async () => {
    const viewerSees = async (): Promise<number> => (await viewerB.get(`/resource/${data.resource}`)).status
    for (let i = 0; i < 3; i++) expect(await viewerSees()).toBe(200)
    const hide = await a.client.put(`/stream/${data.stream}`, { form: { visibility: 'hidden' } })
    expect(hide.status, hide.body).toBe(201)
    const within = { timeout: 1000, interval: 20 }
    await waitFor(async () => (await viewerSees()) === 404, { ...within, message: 'B to hide the resource' })
    // The administrator still sees it (view_protected), from the same process.
    expect((await adminB.get(`/resource/${data.resource}`)).status).toBe(200)
    const show = await a.client.put(`/stream/${data.stream}`, { form: { visibility: 'visible' } })
    expect(show.status, show.body).toBe(201)
    await waitFor(async () => (await viewerSees()) === 200, { ...within, message: 'B to show the resource again' })
  })

  it("a file's subtitles and selected snapshot changed by any session show in the other process within a second", async () => {
    const knex = a.kernel.em().getKnex()
    for (let i = 0; i < 3; i++) expect(await infoOnB()).toContain('<subtitle language="fr"')
    // As psql would: the triggers tell every process, whoever wrote.
    await knex('subtitles').where({ language: 'fr' }).delete()
    await bShows((body) => !body.includes('<subtitle language="fr"'), 'the French subtitles gone on B')
    const snapshot = (await knex('renditions').where({ kind: 'snapshot', name: '3' }).first('id')) as { id: number }
    expect(await infoOnB()).not.toContain(`thumb.jpg?v=${snapshot.id}`)
    await knex('renditions').where({ kind: 'snapshot' }).update({ selected: false })
    await knex('renditions').where({ id: snapshot.id }).update({ selected: true })
    await bShows((body) => body.includes(`thumb.jpg?v=${snapshot.id}`), 'the newly selected snapshot as thumbnail on B')
  })
})
