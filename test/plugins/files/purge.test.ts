import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filesConfigSchema } from '../../../plugins/files/files.config.js'
import { purge } from '../../../plugins/files/purge.job.js'
import { StorageTrashEntity } from '../../../plugins/files/storage-trash.entity.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { waitFor } from '../../helpers/wait.js'
import { text } from '../../helpers/xml.js'
import { INVALID, expectError, xmlOf } from '../identity/permissions.fixtures.js'
import { countRows, filesDeps, other, pendingPieces, storedKeys, upload } from './files.helpers.js'

/** Sends piece `chunk` of 2 of an upload named `name`. */
const piece = (client: DigestClient, name: string, chunk: number, data = other(300)) =>
  upload(client, data, { filename: 'blob', fields: { name, chunk: String(chunk), chunks: '2' } })

/** Moves the last activity of every pending upload (or of one, by name) into the past. */
async function idleSince(app: TestApp, date: Date, name?: string): Promise<void> {
  const em = app.kernel.em()
  if (name) await em.execute('update pending_uploads set updated_at = ? where name = ?', [date, name])
  else await em.execute('update pending_uploads set updated_at = ?', [date])
}

describe('purge job: called directly', () => {
  let app: TestApp
  let alice: DigestClient

  beforeAll(async () => {
    app = await startApp()
    alice = await app.createUser({ username: 'alice' })
  })
  afterAll(async () => app?.close())

  const config = filesConfigSchema.parse({ pending_ttl: 3600 })
  const run = (now: Date) => purge(filesDeps(app.kernel, config), app.kernel.em(), [], now)
  const inSeconds = (seconds: number): Date => new Date(Date.now() + seconds * 1000)

  it('the validated defaults: 24 h pending uploads, a purge every hour, 60 s at least', () => {
    expect(filesConfigSchema.parse({})).toMatchObject({ pending_ttl: 86400, purge_schedule: '17 * * * *' })
    expect(filesConfigSchema.safeParse({ pending_ttl: 59 }).success).toBe(false)
    expect(filesConfigSchema.safeParse({ purge_schedule: 'often' }).success).toBe(false)
    expect(filesConfigSchema.parse({ purge_schedule: '' }).purge_schedule).toBe('')
  })

  it('removes a chunked upload idle past pending_ttl with its pieces; a fresh one stays', async () => {
    expect((await piece(alice, 'old.bin', 0)).status).toBe(200)
    expect((await piece(alice, 'fresh.bin', 0)).status).toBe(200)
    await idleSince(app, new Date(Date.now() - 600_000), 'old.bin')
    const [oldPieces, freshPieces] = await pendingPieces(app)
    const keys = await storedKeys(app)

    // Not yet: 10 minutes idle of the hour allowed.
    expect(await run(new Date())).toEqual({ pendingUploads: 0, other: 0, trash: 0 })
    expect(await storedKeys(app)).toEqual(keys)

    // 55 minutes later the old one is past the hour, the fresh one is not.
    expect(await run(inSeconds(3300))).toEqual({ pendingUploads: 1, other: 0, trash: 1 })
    expect(await storedKeys(app)).toEqual(keys.filter((key) => !oldPieces!.includes(key)))
    expect(await pendingPieces(app)).toEqual([freshPieces])
    expect(await countRows(app, 'storage_trash')).toBe(0)
    // The purged upload is gone: its next piece finds nothing under way; the fresh one goes on.
    expectError(await piece(alice, 'old.bin', 1), 412, INVALID, {
      chunk: 'no upload of "old.bin" is under way: start with piece 0',
    })
    expect(text(xmlOf(await piece(alice, 'fresh.bin', 1), 200).file.size)).toBe('600')

    // Nothing left to do.
    expect(await run(inSeconds(7200))).toEqual({ pendingUploads: 0, other: 0, trash: 0 })
  })

  it('removes trashed bytes left behind, and the bytes of an upload whose process died once its guard is due', async () => {
    const storage = app.kernel.services.ports.get('storage')
    const em = app.kernel.em()
    const write = (key: string) => storage.write(key, Readable.from([other(50)]))
    // A delete whose storage step failed, and an upload killed mid-way (guard due), and one still under way.
    await write('files/aaaaaaaaaaaaaaaaaaaaaaaa/source')
    await write('files/bbbbbbbbbbbbbbbbbbbbbbbb/source')
    await write('files/cccccccccccccccccccccccc/source')
    const now = new Date()
    em.create(StorageTrashEntity, { target: 'files/aaaaaaaaaaaaaaaaaaaaaaaa/', notBefore: now, createdAt: now })
    em.create(StorageTrashEntity, {
      target: 'files/bbbbbbbbbbbbbbbbbbbbbbbb/',
      notBefore: new Date(now.getTime() - 1000),
      createdAt: new Date(now.getTime() - 3_600_000),
    })
    em.create(StorageTrashEntity, {
      target: 'files/cccccccccccccccccccccccc/',
      notBefore: new Date(now.getTime() + 3_600_000),
      createdAt: now,
    })
    await em.flush()
    const keys = await storedKeys(app)
    expect(await run(new Date())).toEqual({ pendingUploads: 0, other: 0, trash: 2 })
    expect(await storedKeys(app)).toEqual(
      keys.filter((key) => !key.startsWith('files/aaaa') && !key.startsWith('files/bbbb')),
    )
    expect(await storage.stat('files/cccccccccccccccccccccccc/source')).not.toBeNull()
    expect(await countRows(app, 'storage_trash')).toBe(1)
  })
})

describe('purge job: on schedule', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ config: { files: { purge_schedule: '* * * * * *', pending_ttl: 60 } } })
  })
  afterAll(async () => app?.close())

  it('runs when configured: an upload idle past pending_ttl disappears within seconds', async () => {
    const user = await app.createUser({ username: 'scheduled' })
    expect((await piece(user, 'abandoned.bin', 0)).status).toBe(200)
    expect((await piece(user, 'active.bin', 0)).status).toBe(200)
    const [abandoned, active] = await pendingPieces(app)
    await idleSince(app, new Date(Date.now() - 120_000), 'abandoned.bin')
    await waitFor(async () => (await countRows(app, 'pending_uploads')) <= 1, {
      interval: 100,
      message: 'the scheduled purge to remove the idle upload',
    })
    expect(await pendingPieces(app)).toEqual([active])
    await waitFor(async () => !(await storedKeys(app)).includes(abandoned![0]!), {
      interval: 100,
      message: "the idle upload's bytes to go",
    })
    const keys = await storedKeys(app)
    expect(keys).not.toContain(abandoned![0])
    expect(keys).toContain(active![0])
  })
})
