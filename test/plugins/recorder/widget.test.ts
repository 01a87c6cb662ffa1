import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { RecorderCodeEntity, peekRecorderCode } from '../../../plugins/recorder/index.js'
import { codeHash } from '../../../plugins/recorder/recorder-code.queries.js'
import { recorderConfigSchema } from '../../../plugins/recorder/recorder.config.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { NEEDS, expectError } from '../../helpers/answers.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'
import { userWithProfile } from '../identity/users.helpers.js'
import { RECORDER_PROFILE, WIDGET, countCodes, deliver, expectWidget, userId } from './recorder.helpers.js'

/** `GET /extension/widget/recorder`: a new single-use recorder code in each answer. */

describe('recorder widget: GET /extension/widget/recorder', () => {
  let app: TestApp
  let publisher: DigestClient
  let viewer: DigestClient

  beforeAll(async () => {
    app = await startApp()
    publisher = await userWithProfile(app, 'pat', 'default-publisher')
    viewer = await userWithProfile(app, 'vic', 'default-viewer')
  })
  afterAll(async () => app?.close())

  it('answers a widget whose code is the URL-encoded iframe of /recorder/<code>, 640x480, for a Publisher', async () => {
    const before = new Date()
    const res = await publisher.get(WIDGET)
    const { code, html } = expectWidget(app, res)
    expect(html).toBe(
      `<iframe src="${app.url}/recorder/${code}" width="640" height="480" allow="camera; microphone" frameborder="0"></iframe>`,
    )
    // Bound to the caller and their platform, unused, for 24 h by default.
    const stored = await peekRecorderCode(app.kernel.services.reader, code)
    expect(stored).toBeDefined()
    expect(stored!.userId).toBe(await userId(app, 'pat'))
    expect(stored!.username).toBe('pat')
    const platform = await app.kernel.em().findOneOrFail(PlatformEntity, { slug: 'default' })
    expect(stored!.platformId).toBe(platform.id)
    expect(stored!.usedAt).toBeNull()
    expect(stored!.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000)
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(86400_000)
  })

  it('stores only a hash of the code, never the code itself', async () => {
    const code = await deliver(app, publisher)
    const rows = await app.kernel.em().find(RecorderCodeEntity, { codeHash: codeHash(code) })
    expect(rows).toHaveLength(1)
    expect(rows[0]!.codeHash).toMatch(/^[0-9a-f]{64}$/)
    expect(await app.kernel.em().count(RecorderCodeEntity, { codeHash: code })).toBe(0)
  })

  it('gives a new code on every request (the request is repeated each time the widget is included)', async () => {
    const pat = await userId(app, 'pat')
    const before = await countCodes(app, pat)
    const codes = []
    for (let i = 0; i < 5; i++) codes.push(await deliver(app, publisher))
    expect(new Set(codes).size).toBe(5)
    expect(await countCodes(app, pat)).toBe(before + 5)
  })

  it('delivers to installation administrators too', async () => {
    const code = await deliver(app, app.client)
    expect((await peekRecorderCode(app.kernel.services.reader, code))!.username).toBe('admin')
  })

  it('answers 401 with a Digest challenge without credentials, and stores nothing', async () => {
    const before = await countCodes(app)
    const res = await rawRequest(`${app.url}${WIDGET}`, 'GET')
    expectError(res, 401, 'Authentication required: use HTTP Digest with your username and API key.')
    expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
    expect(await countCodes(app)).toBe(before)
  })

  it('answers 403 to a Viewer (no video_recorder.use), and stores nothing', async () => {
    const before = await countCodes(app)
    expectError(await viewer.get(WIDGET), 403, NEEDS('video_recorder.use'))
    expect(await countCodes(app)).toBe(before)
  })

  it('answers 403 without file.create (the recording becomes a file), and without video_recorder.use', async () => {
    const recorderOnly = await userWithFlags(app, 'rec-only', ['video_recorder.use'])
    expectError(await recorderOnly.get(WIDGET), 403, NEEDS('file.create'))
    const filesOnly = await userWithFlags(app, 'files-only', ['file.create', 'video_recorder.manage'])
    expectError(await filesOnly.get(WIDGET), 403, NEEDS('video_recorder.use'))
    const both = await userWithFlags(app, 'both', RECORDER_PROFILE)
    await deliver(app, both)
    expect(await countCodes(app, await userId(app, 'rec-only'))).toBe(0)
    expect(await countCodes(app, await userId(app, 'files-only'))).toBe(0)
  })

  it('the code opens the recorder page, without credentials', async () => {
    const code = await deliver(app, publisher)
    const page = await rawRequest(`${app.url}/recorder/${code}`, 'GET', { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
  })

  it('migrations and the entity describe the same recorder_codes table', async () => {
    const diff = await app.kernel.orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })
    expect(diff).not.toMatch(/recorder_codes/)
  })
})

describe('recorder widget: configuration', () => {
  it('defaults: codes live 24 h; bounds are checked', () => {
    expect(recorderConfigSchema.parse({})).toEqual({ code_ttl: 86400 })
    expect(recorderConfigSchema.parse({ code_ttl: '600' })).toEqual({ code_ttl: 600 })
    expect(recorderConfigSchema.safeParse({ code_ttl: 59 }).success).toBe(false)
    expect(recorderConfigSchema.safeParse({ code_ttl: 2592001 }).success).toBe(false)
    expect(recorderConfigSchema.safeParse({ code_ttl: 1.5 }).success).toBe(false)
    expect(recorderConfigSchema.safeParse({ purge_schedule: '23 * * * *' }).success).toBe(false)
    expect(recorderConfigSchema.safeParse({ ttl: 60 }).success).toBe(false)
  })

  it('recorder.code_ttl sets the expiry of delivered codes', async () => {
    const app = await startApp({ config: { recorder: { code_ttl: 120 } } })
    try {
      const code = await deliver(app, app.client)
      const stored = (await peekRecorderCode(app.kernel.services.reader, code))!
      expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(120_000)
    } finally {
      await app.close()
    }
  })

  it('refuses to boot with an invalid recorder section', async () => {
    await expect(startApp({ config: { recorder: { code_ttl: 5 } } })).rejects.toThrow(/recorder\.code_ttl/)
  })
})
