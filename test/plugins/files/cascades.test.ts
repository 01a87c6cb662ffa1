import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FileView } from '../../../plugins/files/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { xmlOf } from '../identity/permissions.fixtures.js'
import {
  MP4,
  PDF,
  PNG,
  type SeenEvent,
  countRows,
  fileEventRecorder,
  fileRow,
  makeDirectory,
  other,
  pendingPieces,
  storedKeys,
  upload,
  uploaded,
  usedSpace,
} from './files.helpers.js'

describe('deleting a user or a platform deletes their files, directories and bytes', () => {
  let app: TestApp
  let events: SeenEvent[]

  beforeAll(async () => {
    const recorder = fileEventRecorder()
    events = recorder.events
    app = await startApp({ plugins: [recorder.plugin] })
  })
  afterAll(async () => app?.close())

  /** Gives a user a small store: files in the root and in nested directories, and a chunked upload under way. */
  async function fillStore(client: DigestClient): Promise<{ files: FileView[]; pieces: string[] }> {
    const top = await makeDirectory(client, 'Top')
    const sub = await makeDirectory(client, 'Sub', top)
    const slugs = [
      text((await uploaded(client, PNG, { filename: 'a.png' })).slug),
      text((await uploaded(client, PDF, { filename: 'b.pdf', fields: { folder: top } })).slug),
      text((await uploaded(client, MP4, { filename: 'c.mp4', fields: { folder: sub } })).slug),
    ]
    const before = (await pendingPieces(app)).flat()
    const res = await upload(client, other(500), {
      filename: 'blob',
      fields: { name: 'pending.bin', chunk: '0', chunks: '2', folder: sub },
    })
    expect(res.status).toBe(200)
    const pieces = (await pendingPieces(app)).flat().filter((key) => !before.includes(key))
    expect(pieces).toHaveLength(1)
    return { files: await Promise.all(slugs.map(async (slug) => (await fileRow(app, slug))!)), pieces }
  }

  const tableCount = async (table: string, username: string): Promise<number> => {
    const rows = await app.kernel
      .em()
      .execute<{ n: number | string }[]>(
        `select count(*) as n from ${table} t join users u on u.id = t.user_id where u.username = ?`,
        [username],
      )
    return Number(rows[0]!.n)
  }

  it('DELETE /user/<username>: their files, directories, chunked uploads and bytes go; others stay', async () => {
    const doomed = await app.createUser({ username: 'doomed' })
    const kept = await app.createUser({ username: 'kept' })
    const gone = await fillStore(doomed)
    const stays = await fillStore(kept)
    const used = await usedSpace(app)
    const keys = await storedKeys(app)
    events.length = 0

    expect((await app.client.delete('/user/doomed')).status).toBe(204)

    const storage = app.kernel.services.ports.get('storage')
    for (const file of gone.files) expect(await storage.stat(file.storageKey)).toBeNull()
    for (const key of gone.pieces) expect(await storage.stat(key)).toBeNull()
    for (const file of stays.files) expect(await storage.stat(file.storageKey)).not.toBeNull()
    const goneKeys = [...gone.files.map((file) => file.storageKey), ...gone.pieces]
    expect(await storedKeys(app)).toEqual(keys.filter((key) => !goneKeys.includes(key)))
    expect(await usedSpace(app)).toBe(used - PNG.length - PDF.length - MP4.length)
    expect(await countRows(app, 'storage_trash')).toBe(0)
    const doomedRows = await app.kernel.em().execute<{ n: number | string }[]>(
      `select (select count(*) from files where user_id not in (select id from users))
            + (select count(*) from directories where user_id not in (select id from users))
            + (select count(*) from pending_uploads where user_id not in (select id from users)) as n`,
    )
    expect(Number(doomedRows[0]!.n)).toBe(0)
    for (const table of ['files', 'directories', 'pending_uploads']) {
      expect(await tableCount(table, 'kept')).toBe(table === 'files' ? 3 : table === 'directories' ? 2 : 1)
    }
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ event: 'file.deleted', inTransaction: true })
    expect(events[0]!.slugs.sort()).toEqual(gone.files.map((file) => file.slug).sort())
    expect(xmlOf(await kept.get('/files'), 200).files.file.slug).toBe(stays.files[0]!.slug)
  })

  it('DELETE /platform/<slug>: every file of its users goes with its bytes; other platforms stay', async () => {
    const res = await app.client.post('/platforms', { form: { name: 'Closing', max_users: 0, max_space: 0 } })
    const slug = text(xmlOf(res, 201).platform.slug)
    const one = await app.createUser({ username: 'closing-1', platform: slug })
    const two = await app.createUser({ username: 'closing-2', platform: slug })
    const outside = await app.createUser({ username: 'outside' })
    const first = await fillStore(one)
    const second = await fillStore(two)
    const stays = await fillStore(outside)
    const keys = await storedKeys(app)
    const usedDefault = await usedSpace(app)
    expect(await usedSpace(app, slug)).toBe(2 * (PNG.length + PDF.length + MP4.length))
    events.length = 0

    expect((await app.client.delete(`/platform/${slug}`)).status).toBe(204)

    const goneKeys = [...first.files, ...second.files].map((file) => file.storageKey)
    goneKeys.push(...first.pieces, ...second.pieces)
    expect(await storedKeys(app)).toEqual(keys.filter((key) => !goneKeys.includes(key)))
    const storage = app.kernel.services.ports.get('storage')
    for (const file of stays.files) expect(await storage.stat(file.storageKey)).not.toBeNull()
    expect(await usedSpace(app)).toBe(usedDefault)
    expect(await countRows(app, 'storage_trash')).toBe(0)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ event: 'file.deleted', inTransaction: true })
    expect(events[0]!.slugs.sort()).toEqual([...first.files, ...second.files].map((file) => file.slug).sort())
    expect(await tableCount('files', 'outside')).toBe(3)
    expect(await tableCount('directories', 'outside')).toBe(2)
  })
})
