import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { expectError, makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { countRows, fileRow, other, storedKeys, upload, uploaded, usedSpace } from './files.helpers.js'

const NO_SPACE = 'Not enough space left: delete files or ask an administrator for more space.'
const platformFull = (max: number, left: number) => ({
  path: `exceeds the platform's space of ${max} bytes (${left} bytes left)`,
})
const profileFull = (quota: number, left: number) => ({
  path: `exceeds your profile's quota of ${quota} bytes (${left} bytes left)`,
})

describe('space quotas: platform max_space and profile quota', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  async function platform(name: string, maxSpace: number): Promise<string> {
    const res = await app.client.post('/platforms', { form: { name, max_users: 0, max_space: maxSpace } })
    return text(xmlOf(res, 201).platform.slug)
  }

  /** Runs a refused request and checks that storage, the rows and used_space did not move. */
  async function refused(slug: string, run: () => Promise<void>): Promise<void> {
    const keys = await storedKeys(app)
    const files = await countRows(app, 'files')
    const used = await usedSpace(app, slug)
    await run()
    expect(await storedKeys(app)).toEqual(keys)
    expect(await countRows(app, 'files')).toBe(files)
    expect(await usedSpace(app, slug)).toBe(used)
  }

  it('max_space: over the limit is a 412 on path, nothing is stored; an exactly fitting upload is accepted', async () => {
    const slug = await platform('Limited', 10000)
    const u1 = await app.createUser({ username: 'limited-1', platform: slug })
    const u2 = await app.createUser({ username: 'limited-2', platform: slug })
    await uploaded(u1, other(6000))
    expect(await usedSpace(app, slug)).toBe(6000)
    await refused(slug, async () => {
      expectError(await upload(u1, other(5000)), 412, NO_SPACE, platformFull(10000, 4000))
      // The platform is shared: another user of it is refused the same way.
      expectError(await upload(u2, other(4001)), 412, NO_SPACE, platformFull(10000, 4000))
      // Much larger than the space left: refused while it streams, the answer still comes.
      expectError(await upload(u2, other(3 * 1024 * 1024)), 412, NO_SPACE, platformFull(10000, 4000))
    })
    await uploaded(u2, other(4000))
    expect(await usedSpace(app, slug)).toBe(10000)
    await refused(slug, async () => {
      expectError(await upload(u1, other(1)), 412, NO_SPACE, platformFull(10000, 0))
    })
    // Deleting frees the space.
    const doomed = await uploaded(app.client, other(10))
    expect((await app.client.delete(`/file/${text(doomed.slug)}`)).status).toBe(204)
    const first = xmlOf(await u1.get('/files'), 200).files.file as XmlObject
    expect((await u1.delete(`/file/${text(first.slug)}`)).status).toBe(204)
    expect(await usedSpace(app, slug)).toBe(4000)
    await uploaded(u1, other(6000))
    // Other platforms are not concerned.
    await uploaded(app.client, other(20000))
  })

  it('profile quota: counts the user’s own files only; over is a 412, an exact fit passes', async () => {
    const profile = await makeProfile(app, ['file.create', 'file.delete'], 'default', 5000)
    const quoted = await userWithProfile(app, 'quoted', profile)
    const sameProfile = await userWithProfile(app, 'quoted-too', profile)
    await uploaded(quoted, other(3000))
    await refused('default', async () => {
      expectError(await upload(quoted, other(2001)), 412, NO_SPACE, profileFull(5000, 2000))
    })
    // The quota is per user, not per profile.
    await uploaded(sameProfile, other(5000))
    await uploaded(quoted, other(2000))
    await refused('default', async () => {
      expectError(await upload(quoted, other(1)), 412, NO_SPACE, profileFull(5000, 0))
      expectError(await upload(sameProfile, other(1)), 412, NO_SPACE, profileFull(5000, 0))
    })
  })

  it('both limits: the answer names the tighter one', async () => {
    const slug = await platform('Both', 8000)
    const profile = await makeProfile(app, ['file.create'], slug, 3000)
    const small = await userWithProfile(app, 'both-small', profile)
    const big = await app.createUser({ username: 'both-big', platform: slug })
    await uploaded(small, other(2500))
    await refused(slug, async () => {
      expectError(await upload(small, other(1000)), 412, NO_SPACE, profileFull(3000, 500))
    })
    await uploaded(big, other(5000))
    await refused(slug, async () => {
      expectError(await upload(big, other(600)), 412, NO_SPACE, platformFull(8000, 500))
      expectError(await upload(small, other(600)), 412, NO_SPACE, profileFull(3000, 500))
    })
    await uploaded(big, other(400))
    await refused(slug, async () => {
      expectError(await upload(small, other(101)), 412, NO_SPACE, platformFull(8000, 100))
    })
  })

  it('20 concurrent uploads against a nearly full platform never overshoot', async () => {
    const slug = await platform('Racing', 10000)
    const racer = await app.createUser({ username: 'racer', platform: slug })
    await uploaded(racer, other(7000))
    const keysBefore = await storedKeys(app)
    // One client per request: each has its own nonce, so arrival order cannot look like a replay.
    const results: Response[] = await Promise.all(
      Array.from({ length: 20 }, () => upload(app.clientFor(racer.username, racer.apiKey), other(1000))),
    )
    const accepted = results.filter((res) => res.status === 200)
    const refusedOnes = results.filter((res) => res.status === 412)
    expect(accepted.length + refusedOnes.length).toBe(20)
    expect(accepted).toHaveLength(3)
    for (const res of refusedOnes) {
      const doc = xmlOf(res, 412).error as XmlObject
      expect(text(doc.message)).toBe(NO_SPACE)
      expect(doc.field['@name']).toBe('path')
      expect(text(doc.field)).toMatch(/^exceeds the platform's space of 10000 bytes \((0|1000|2000|3000) bytes left\)$/)
    }
    expect(await usedSpace(app, slug)).toBe(10000)
    // Storage holds exactly the accepted files, nothing of the refused ones.
    const acceptedKeys = await Promise.all(
      accepted.map(async (res) => (await fileRow(app, text(xmlOf(res, 200).file.slug)))!.storageKey),
    )
    expect(await storedKeys(app)).toEqual([...keysBefore, ...acceptedKeys].sort())
  })

  it('20 concurrent uploads against a nearly full profile quota never overshoot', async () => {
    const profile = await makeProfile(app, ['file.create'], 'default', 4000)
    const racer = await userWithProfile(app, 'quota-racer', profile)
    await uploaded(racer, other(1500))
    const keysBefore = await storedKeys(app)
    const results = await Promise.all(
      Array.from({ length: 20 }, () => upload(app.clientFor(racer.username, racer.apiKey), other(500))),
    )
    expect(results.filter((res) => res.status === 200)).toHaveLength(5)
    expect(results.filter((res) => res.status === 412)).toHaveLength(15)
    const listed = xmlOf(await racer.get('/files'), 200).files.file as XmlObject[]
    expect(listed.reduce((sum, file) => sum + Number(text(file.size)), 0)).toBe(4000)
    expect((await storedKeys(app)).length).toBe(keysBefore.length + 5)
  })

  it('pieces of a chunked upload hold space while pending', async () => {
    const slug = await platform('Pending', 5000)
    const user = await app.createUser({ username: 'chunker', platform: slug })
    const neighbour = await app.createUser({ username: 'neighbour', platform: slug })
    const piece = (data: Buffer, chunk: number, client: DigestClient = user) =>
      upload(client, data, { filename: 'big.bin', fields: { chunk: String(chunk), chunks: '2' } })
    expect((await piece(other(3000), 0)).status).toBe(200)
    // used_space shows files only; the pending piece still holds its 3000 bytes.
    expect(await usedSpace(app, slug)).toBe(0)
    await refused(slug, async () => {
      expectError(await upload(user, other(2500)), 412, NO_SPACE, platformFull(5000, 2000))
      expectError(await upload(neighbour, other(2001)), 412, NO_SPACE, platformFull(5000, 2000))
      expectError(await piece(other(2500), 1), 412, NO_SPACE, platformFull(5000, 2000))
    })
    // A replaced piece frees its own bytes: piece 0 again, smaller, then the rest fits.
    expect((await piece(other(2000), 0)).body).toBe(JSON.stringify({ chunk: 0, chunks: 2, bytes: 2000 }))
    const last = await piece(other(3000), 1)
    expect(text(xmlOf(last, 200).file.size)).toBe('5000')
    expect(await usedSpace(app, slug)).toBe(5000)
    expect(await countRows(app, 'pending_uploads')).toBe(0)
  })
})
