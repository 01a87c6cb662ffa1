import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CreatedUser, UserEntity, createUser, userCommands } from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { runPluginCommand } from '../../../src/app/plugin-commands.js'
import { HttpError, UserError } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { Response } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { INVALID, expectError, usernamesOf, xmlOf } from './users.helpers.js'

const full = (count: number): Record<string, string> => ({
  max_users: `is reached: the platform already has ${count} users`,
})

describe('max_users', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
    const res = await app.client.post('/platforms', { form: { name: 'Small', max_users: 5, max_space: 0 } })
    expect(res.status).toBe(201)
  })
  afterAll(async () => app?.close())

  const post = (username: string, client = app.client): Promise<Response> =>
    client.post('/platform/small/users', {
      form: { username, password: 'pw', email: `${username}@example.org`, profile: 'small-viewer' },
    })
  const createdUsers = async (): Promise<string> =>
    text(xmlOf(await app.client.get('/platform/small'), 200).platform.created_users)

  it('20 concurrent creations against the 3 places left: exactly 3 succeed, none overshoots', async () => {
    expect((await post('first')).status).toBe(201)
    expect((await post('second')).status).toBe(201)
    expect(await createdUsers()).toBe('2')
    // One client per request: each has its own nonce, so arrival order cannot look like a replay.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(`racer${i}`, app.clientFor(app.admin.username, app.admin.apiKey))),
    )
    const created = results.filter((r) => r.status === 201)
    const refused = results.filter((r) => r.status === 412)
    expect(created).toHaveLength(3)
    expect(refused).toHaveLength(17)
    for (const res of refused) expectError(res, 412, INVALID, full(5))
    expect(await createdUsers()).toBe('5')
    expect(await usernamesOf(app.client, 'small')).toHaveLength(5)
    const platform = await app.kernel.em().findOneOrFail(PlatformEntity, { slug: 'small' })
    expect(await app.kernel.em().count(UserEntity, { platform })).toBe(5)
  })

  it('a full platform refuses, and stores nothing; other platforms are not concerned', async () => {
    expectError(await post('sixth'), 412, INVALID, full(5))
    expect(await createdUsers()).toBe('5')
    // The quota is checked with the other rules: every failing field is listed.
    const res = await app.client.post('/platform/small/users', {
      form: { username: 'first', password: 'pw', email: 'first@example.org', profile: 'small-viewer' },
    })
    expectError(res, 412, INVALID, {
      ...full(5),
      username: 'is already used',
      email: 'is already used on this platform',
    })
    // max_users 0 is unlimited.
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.clientFor(app.admin.username, app.admin.apiKey).post('/platform/default/users', {
          form: { username: `free${i}`, password: 'pw', email: `free${i}@example.org`, profile: 'default-viewer' },
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201))
  })

  it('deleting a user, or raising max_users, makes room', async () => {
    expect((await app.client.delete('/user/first')).status).toBe(204)
    expect((await post('third')).status).toBe(201)
    expectError(await post('fourth'), 412, INVALID, full(5))
    expect((await app.client.put('/platform/small', { form: { max_users: 6 } })).status).toBe(200)
    expect((await post('fourth')).status).toBe(201)
    expect(await createdUsers()).toBe('6')
    // Lowered below the count: existing users stay, new ones are refused.
    expect((await app.client.put('/platform/small', { form: { max_users: 2 } })).status).toBe(200)
    expectError(await post('fifth'), 412, INVALID, full(6))
    expect(await createdUsers()).toBe('6')
  })

  it('the service that the CLI and init use applies it too', async () => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'small' })
    const attempt = createUser(em, { platform, username: 'cli', email: 'cli@example.org', realm: 'mediactl' })
    await expect(attempt).rejects.toBeInstanceOf(HttpError)
    await expect(attempt).rejects.toMatchObject({ status: 412, fields: full(6) })
    expect(await createdUsers()).toBe('6')
  })

  describe('mediactl user create', () => {
    const userCreate = userCommands.find((command) => command.name === 'user create')!
    const command = (flags: { platform: string; username: string; email: string; password?: string }) =>
      runPluginCommand<CreatedUser>(
        { plugin: 'identity', command: userCreate },
        { flags, args: {} },
        {
          env: {},
          cwd: app.dataDir,
          overrides: {
            data_dir: app.dataDir,
            log_level: 'silent',
            database: { url: app.kernel.config.database.url },
            auth: { secret: app.kernel.config.auth.secret },
          },
        },
      )

    it('respects max_users', async () => {
      const attempt = command({ platform: 'small', username: 'cli', email: 'cli@example.org' })
      await expect(attempt).rejects.toBeInstanceOf(UserError)
      await expect(attempt).rejects.toThrow('the max_users is reached: the platform already has 6 users')
      expect(await createdUsers()).toBe('6')
    })

    it('applies the API rules to its fields, listing every failure (passwords are not echoed)', async () => {
      await expect(
        command({ platform: 'default', username: 'bad name', email: 'nope', password: 'p'.repeat(129) }),
      ).rejects.toThrow(
        'the username "bad name" may hold only letters, digits and . _ - @, and must start with a letter or a digit; ' +
          'the password must be at most 128 characters; the email "nope" must be a valid e-mail address',
      )
      await expect(
        command({ platform: 'default', username: 'u'.repeat(129), email: 'ok@example.org' }),
      ).rejects.toThrow(`the username "${'u'.repeat(129)}" must be at most 128 characters`)
      await expect(command({ platform: 'default', username: 'FREE0', email: 'free0@example.org' })).rejects.toThrow(
        'the username "FREE0" is already used; choose another one; the email "free0@example.org" is already used on this platform; choose another one',
      )
      const made = await command({ platform: 'default', username: 'cli-ok', email: 'cli-ok@example.org' })
      expect(made).toMatchObject({ username: 'cli-ok', platform: 'default', profile: 'default-viewer' })
      expect((await app.clientFor('cli-ok', made.api_key).get('/user/cli-ok')).status).toBe(200)
    })
  })
})
