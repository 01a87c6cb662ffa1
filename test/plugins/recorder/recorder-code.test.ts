import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileEntity, UserEntity } from '../../../plugins/identity/index.js'
import { createPlatform } from '../../../plugins/platforms/index.js'
import { consumeRecorderCode, peekRecorderCode } from '../../../plugins/recorder/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { recordingLogger } from '../../helpers/log.js'
import { multipart } from '../../helpers/multipart.js'
import { expectError, xmlOf } from '../../helpers/answers.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'
import { userWithProfile } from '../identity/users.helpers.js'
import {
  RECORDER_PROFILE,
  countCodes,
  deliver,
  expectUploadLinks,
  expireAt,
  uploadLinksPath,
  userId,
} from './recorder.helpers.js'

/** Recorder codes are single use: spent by `consumeRecorderCode`, seen end to end through upload links. */

const ASK_AGAIN = 'ask for a new widget (GET /extension/widget/recorder)'
const UNKNOWN = `No such recorder code: ${ASK_AGAIN}.`
const USED = `This recorder code was already used, and a code is usable once: ${ASK_AGAIN}.`
const EXPIRED = `This recorder code expired: ${ASK_AGAIN}.`

/** Spends a code over HTTP: no credentials, the code is the credential. */
const spend = (app: TestApp, code: string): Promise<Response> =>
  rawRequest(`${app.url}${uploadLinksPath(code)}`, 'POST')

const inSeconds = (seconds: number): Date => new Date(Date.now() + seconds * 1000)

describe('recorder codes: single use', () => {
  let app: TestApp
  let publisher: DigestClient

  beforeAll(async () => {
    app = await startApp()
    publisher = await userWithProfile(app, 'pat', 'default-publisher')
  })
  afterAll(async () => app?.close())

  describe('POST /extension/widget/recorder/<code>/upload_links', () => {
    it('spends the code once for upload links into the root of its user, and the json link uploads', async () => {
      const code = await deliver(app, publisher)
      const res = await spend(app, code)
      expect(res.headers['www-authenticate']).toBeUndefined()
      const links = expectUploadLinks(app, res, code)

      const data = Buffer.from('a short recording stands in here\n')
      const { body, contentType } = multipart([{ name: 'file[path]', filename: 'take-1.txt', data }])
      const upload = await rawRequest(links.json, 'POST', { body, headers: { 'content-type': contentType } })
      expect(upload.status, upload.body).toBe(200)
      const result = (JSON.parse(upload.body) as { result: Record<string, unknown> }).result
      const slug = String(result.slug)
      expect(result).toEqual({ slug, name: 'take-1.txt', size: data.length, href: `${app.url}/file/${slug}` })

      // The owner sees it in their root directory.
      const file = xmlOf(await publisher.get(`/file/${slug}`), 200).file as XmlObject
      expect(text(file.name)).toBe('take-1.txt')
      expect(text(file.size)).toBe(String(data.length))
      expect(file.directory).toEqual({ '@href': `${app.url}/files`, '@rel': 'parent' })
      const root = xmlOf(await publisher.get('/files'), 200)
      expect(list<XmlObject>(root.files.file).map((f) => f['@href'])).toContain(`${app.url}/file/${slug}`)
    })

    it('refuses a second use with 412, and the code stays spent', async () => {
      const code = await deliver(app, publisher)
      expectUploadLinks(app, await spend(app, code), code)
      const usedAt = (await peekRecorderCode(app.kernel.services.reader, code))!.usedAt
      expect(usedAt).toBeInstanceOf(Date)
      expectError(await spend(app, code), 412, USED)
      expectError(await spend(app, code), 412, USED)
      expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).toEqual(usedAt)
    })

    it('answers 404 for a code that was never delivered, or is not shaped like one', async () => {
      expectError(await spend(app, 'A'.repeat(32)), 404, UNKNOWN)
      expectError(await spend(app, 'not-a-code'), 404, UNKNOWN)
      expectError(await spend(app, `${'b'.repeat(31)}%21`), 404, UNKNOWN)
      expectError(await spend(app, 'c'.repeat(300)), 404, UNKNOWN)
    })

    it('answers 412 for an expired code, and does not spend it', async () => {
      const code = await deliver(app, publisher)
      await expireAt(app, code, new Date(Date.now() - 1000))
      expectError(await spend(app, code), 412, EXPIRED)
      expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).toBeNull()
    })

    it('of 20 concurrent uses of one code, exactly one gets links', async () => {
      const code = await deliver(app, publisher)
      const answers = await Promise.all(Array.from({ length: 20 }, () => spend(app, code)))
      const statuses = answers.map((res) => res.status).sort()
      expect(statuses).toEqual([200, ...Array<number>(19).fill(412)])
      expectUploadLinks(
        app,
        answers.find((res) => res.status === 200)!,
        code,
      )
      for (const res of answers.filter((r) => r.status === 412)) expectError(res, 412, USED)
    })

    it('refuses (and spends) the code of a user who lost a recorder flag, or was deactivated', async () => {
      const lucy = await userWithFlags(app, 'lucy', RECORDER_PROFILE)
      const first = await deliver(app, lucy)
      const second = await deliver(app, lucy)
      const third = await deliver(app, lucy)
      const em = app.kernel.em()
      const user = await em.findOneOrFail(UserEntity, { username: 'lucy' }, { populate: ['profile'] })
      const profile = await em.findOneOrFail(ProfileEntity, { id: user.profile.id })

      profile.permissions = ['video_recorder.use']
      await em.flush()
      expectError(
        await spend(app, first),
        403,
        'The user of this recorder code no longer holds the "file.create" permission of their profile.',
      )
      profile.permissions = ['file.create']
      await em.flush()
      expectError(
        await spend(app, second),
        403,
        'The user of this recorder code no longer holds the "video_recorder.use" permission of their profile.',
      )
      profile.permissions = [...RECORDER_PROFILE]
      user.isActive = false
      await em.flush()
      expectError(await spend(app, third), 401, 'The user of this recorder code cannot upload any more.')

      user.isActive = true
      await em.flush()
      for (const code of [first, second, third]) expectError(await spend(app, code), 412, USED)
    })
  })

  describe('consumeRecorderCode and peekRecorderCode', () => {
    it('answers the user and platform once, then refuses; peek reads without spending', async () => {
      const code = await deliver(app, publisher)
      const reader = app.kernel.services.reader
      const seen = (await peekRecorderCode(reader, code))!
      expect(seen.usedAt).toBeNull()
      expect(await peekRecorderCode(reader, code)).toEqual(seen)

      const now = new Date()
      const pat = await app.kernel.em().findOneOrFail(UserEntity, { username: 'pat' })
      expect(await consumeRecorderCode(app.kernel.em(), code, now)).toEqual({
        ok: true,
        userId: pat.id,
        platformId: pat.platform.id,
        username: 'pat',
      })
      expect((await peekRecorderCode(reader, code))!.usedAt!.getTime()).toBe(now.getTime())
      expect(await consumeRecorderCode(app.kernel.em(), code)).toEqual({ ok: false, problem: 'used' })
    })

    it('refuses unknown codes without a row, and expired ones as of `now` without spending them', async () => {
      expect(await consumeRecorderCode(app.kernel.em(), 'Z'.repeat(32))).toEqual({ ok: false, problem: 'unknown' })
      expect(await consumeRecorderCode(app.kernel.em(), '')).toEqual({ ok: false, problem: 'unknown' })
      expect(await peekRecorderCode(app.kernel.services.reader, 'x')).toBeUndefined()

      const code = await deliver(app, publisher)
      const expiry = (await peekRecorderCode(app.kernel.services.reader, code))!.expiresAt
      // At the expiry instant it is over; a millisecond before, it is still good.
      expect(await consumeRecorderCode(app.kernel.em(), code, expiry)).toEqual({ ok: false, problem: 'expired' })
      expect(await consumeRecorderCode(app.kernel.em(), code, inSeconds(86400 * 2))).toEqual({
        ok: false,
        problem: 'expired',
      })
      expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).toBeNull()
      const justBefore = new Date(expiry.getTime() - 1)
      expect((await consumeRecorderCode(app.kernel.em(), code, justBefore)).ok).toBe(true)
      expect(await consumeRecorderCode(app.kernel.em(), code, justBefore)).toEqual({ ok: false, problem: 'used' })
    })

    it('of 20 concurrent consumes, each with its own EntityManager, exactly one succeeds', async () => {
      const code = await deliver(app, publisher)
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => consumeRecorderCode(app.kernel.em(), code)))
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1)
      expect(outcomes.filter((o) => !o.ok)).toEqual(Array(19).fill({ ok: false, problem: 'used' }))
    })
  })

  describe('cascades', () => {
    it('deleting a user removes their codes, and only theirs', async () => {
      const doomed = await userWithProfile(app, 'doomed', 'default-publisher')
      const codes = [await deliver(app, doomed), await deliver(app, doomed)]
      const id = await userId(app, 'doomed')
      const others = (await countCodes(app)) - 2
      expect(await countCodes(app, id)).toBe(2)
      expect((await app.client.delete('/user/doomed')).status).toBe(204)
      expect(await countCodes(app, id)).toBe(0)
      expect(await countCodes(app)).toBe(others)
      for (const code of codes) expectError(await spend(app, code), 404, UNKNOWN)
    })

    it("deleting a platform removes its users' codes", async () => {
      const em = app.kernel.em()
      const platform = await createPlatform(app.kernel.emit, em, { name: 'Gone soon', maxUsers: 0, maxSpace: 0 })
      const guest = await userWithProfile(app, 'guest', `${platform.slug}-publisher`, { platform: platform.slug })
      const code = await deliver(app, guest)
      const id = await userId(app, 'guest')
      expect(await countCodes(app, id)).toBe(1)
      expect((await app.client.delete(`/platform/${platform.slug}`)).status).toBe(204)
      expect(await countCodes(app, id)).toBe(0)
      expectError(await spend(app, code), 404, UNKNOWN)
    })
  })

  describe('purge (maintenance.purge, mediactl purge)', () => {
    const purge = async (now: Date): Promise<Record<string, number>> => {
      const report: Record<string, number> = {}
      await app.kernel.services.events.emit('maintenance.purge', { now, report })
      return report
    }

    it('removes expired codes, used or not, and keeps live ones, used or not', async () => {
      await purge(inSeconds(86400 * 2)) // start from an empty table
      expect(await countCodes(app)).toBe(0)
      const [expired, expiredUsed, live, liveUsed] = [
        await deliver(app, publisher),
        await deliver(app, publisher),
        await deliver(app, publisher),
        await deliver(app, publisher),
      ]
      expectUploadLinks(app, await spend(app, expiredUsed!), expiredUsed!)
      expectUploadLinks(app, await spend(app, liveUsed!), liveUsed!)
      await expireAt(app, expired!, new Date(Date.now() - 1000))
      await expireAt(app, expiredUsed!, new Date(Date.now() - 1000))

      expect((await purge(new Date()))['expired recorder codes']).toBe(2)
      expect(await countCodes(app)).toBe(2)
      expect(await peekRecorderCode(app.kernel.services.reader, expired!)).toBeUndefined()
      expect(await peekRecorderCode(app.kernel.services.reader, expiredUsed!)).toBeUndefined()
      expectUploadLinks(app, await spend(app, live!), live!)
      expectError(await spend(app, liveUsed!), 412, USED)

      expect((await purge(new Date()))['expired recorder codes']).toBe(0)
      // A day and more later, they have expired too.
      expect((await purge(inSeconds(86401)))['expired recorder codes']).toBe(2)
      expect(await countCodes(app)).toBe(0)
    })
  })
})

describe('recorder codes: scheduled purge in serving processes', () => {
  it("removes expired codes on the files plugin's purge schedule (every plugin's purge), and only those", async () => {
    const app = await startApp({ config: { files: { purge_schedule: '* * * * * *' } } })
    try {
      const [expired, live] = [await deliver(app, app.client), await deliver(app, app.client)]
      await expireAt(app, expired!, new Date(Date.now() - 1000))
      await waitFor(async () => (await countCodes(app)) <= 1, { interval: 100, message: 'the scheduled purge' })
      expect(await peekRecorderCode(app.kernel.services.reader, expired!)).toBeUndefined()
      expect(await peekRecorderCode(app.kernel.services.reader, live!)).toBeDefined()
    } finally {
      await app.close()
    }
  })

  it('does not run when files.purge_schedule is empty', async () => {
    const { logger, lines } = recordingLogger()
    const app = await startApp({ config: { files: { purge_schedule: '' } }, logger })
    try {
      const code = await deliver(app, app.client)
      await expireAt(app, code, new Date(Date.now() - 1000))
      // Nothing was scheduled (the operator is told to run it from cron), so nothing will run.
      expect(lines.map((line) => line.msg)).toContain(
        'purge not scheduled (files.purge_schedule is empty): run `mediactl purge` from cron',
      )
      expect(lines.map((line) => line.msg)).not.toContain('purge scheduled')
      expect(await peekRecorderCode(app.kernel.services.reader, code)).toBeDefined()
    } finally {
      await app.close()
    }
  })
})
