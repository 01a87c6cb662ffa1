import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlayerBehaviorEntity, PlayerThemeEntity } from '../../../plugins/players/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { rawRequest } from '../../helpers/digest-client.js'
import { parseXml, text } from '../../helpers/xml.js'
import {
  NEEDS,
  expectError,
  grantOnPlatform,
  userWithFlags,
  userWithProfile,
  xmlOf,
} from '../identity/permissions.fixtures.js'
import {
  BEHAVIOR,
  DARK,
  DEFAULT,
  type Family,
  THEME,
  create,
  createPlatform,
  expectInfo,
  listPath,
  onePath,
  slugsOf,
} from './players.helpers.js'

/** A slug of each family that exists on the default platform. */
const existing = (f: Family): string => (f === THEME ? 'default-dark' : 'default-default')

describe('player themes and behaviors: authorization', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp()
    other = await createPlatform(app.client, 'Other')
  })
  afterAll(async () => app?.close())

  /** The stored rows, to show that refused requests change nothing. */
  const snapshot = async () => {
    const em = app.kernel.em()
    const rows = [
      ...(await em.find(PlayerThemeEntity, {}, { orderBy: { id: 'asc' } })),
      ...(await em.find(PlayerBehaviorEntity, {}, { orderBy: { id: 'asc' } })),
    ]
    return JSON.stringify(rows.map(({ platform, ...row }) => ({ ...row, platform: platform.id })))
  }

  for (const f of [THEME, BEHAVIOR]) {
    describe(f.kind, () => {
      const settings = f === THEME ? DARK : DEFAULT
      const name = f === THEME ? 'Dark' : 'Default'

      it(`the Publisher profile (${f.kind}.use, not create/edit/delete) reads, and gets 403 on writes`, async () => {
        const publisher = await userWithProfile(app, `publisher-${f.kind}`, 'default-publisher')
        expect(await slugsOf(app, publisher, f)).toEqual(await slugsOf(app, app.client, f))
        const page = await publisher.get(listPath(f), { headers: { range: 'entities=1-1' } })
        expect(page.headers['content-range']).toBe(`entities 1-1/${f === THEME ? 2 : 3}`)
        const slug = existing(f)
        expectInfo(app, await publisher.get(onePath(f, slug)), 200, f, { slug, name, settings })
        const before = await snapshot()
        expectError(await publisher.post(listPath(f), { form: { name: 'Mine' } }), 403, NEEDS(`${f.kind}.create`))
        // Authorization comes before validation: invalid fields still get 403.
        expectError(await publisher.post(listPath(f), { form: {} }), 403, NEEDS(`${f.kind}.create`))
        expectError(await publisher.put(onePath(f, slug), { form: { name: 'Mine' } }), 403, NEEDS(`${f.kind}.edit`))
        expectError(await publisher.put(onePath(f, slug), { form: { name: '' } }), 403, NEEDS(`${f.kind}.edit`))
        expectError(await publisher.delete(onePath(f, slug)), 403, NEEDS(`${f.kind}.delete`))
        expect(await snapshot()).toBe(before)
      })

      it('each write needs its own flag', async () => {
        const creator = await userWithFlags(app, `creator-${f.kind}`, ['platform.view', `${f.kind}.create`])
        const slug = await create(creator, f, { name: `Made by a creator` })
        expectError(await creator.put(onePath(f, slug), { form: { name: 'x' } }), 403, NEEDS(`${f.kind}.edit`))
        expectError(await creator.delete(onePath(f, slug)), 403, NEEDS(`${f.kind}.delete`))
        const editor = await userWithFlags(app, `editor-${f.kind}`, ['platform.view', `${f.kind}.edit`])
        const renamed = await editor.put(onePath(f, slug), { form: { name: 'Renamed' } })
        expect(text(xmlOf(renamed, 200)[f.kind].name)).toBe('Renamed')
        expectError(await editor.post(listPath(f), { form: { name: 'x' } }), 403, NEEDS(`${f.kind}.create`))
        const deleter = await userWithFlags(app, `deleter-${f.kind}`, ['platform.view', `${f.kind}.delete`])
        expect((await deleter.delete(onePath(f, slug))).status).toBe(204)
        // The other family's flags do not count.
        const sibling = f === THEME ? BEHAVIOR : THEME
        expectError(
          await creator.post(listPath(sibling), { form: { name: 'x' } }),
          403,
          NEEDS(`${sibling.kind}.create`),
        )
      })

      it('without platform.view, the flags alone see nothing (404); an access on the platform is enough to read', async () => {
        const blind = await userWithFlags(app, `blind-${f.kind}`, [
          `${f.kind}.create`,
          `${f.kind}.edit`,
          `${f.kind}.delete`,
          `${f.kind}.use`,
        ])
        const noPlatform = 'No platform "default".'
        const slug = existing(f)
        expectError(await blind.get(listPath(f)), 404, noPlatform)
        expectError(await blind.post(listPath(f), { form: { name: 'x' } }), 404, noPlatform)
        expectError(await blind.get(onePath(f, slug)), 404, noPlatform)
        expectError(await blind.put(onePath(f, slug), { form: { name: 'x' } }), 404, noPlatform)
        expectError(await blind.delete(onePath(f, slug)), 404, noPlatform)
        await grantOnPlatform(app, `blind-${f.kind}`, 'default-viewer')
        expectInfo(app, await blind.get(onePath(f, slug)), 200, f, { slug, name, settings })
      })

      it("a user of another platform (its administrator) gets 404 for this platform's, and for them under their own", async () => {
        const stranger = await userWithProfile(app, `stranger-${f.kind}`, `${other}-administrator`)
        const noPlatform = 'No platform "default".'
        const slug = existing(f)
        const before = await snapshot()
        expectError(await stranger.get(listPath(f)), 404, noPlatform)
        expectError(await stranger.post(listPath(f), { form: { name: 'x' } }), 404, noPlatform)
        expectError(await stranger.get(onePath(f, slug)), 404, noPlatform)
        expectError(await stranger.put(onePath(f, slug), { form: { name: 'x' } }), 404, noPlatform)
        expectError(await stranger.delete(onePath(f, slug)), 404, noPlatform)
        // Under the stranger's own platform path, the default platform's slug is unknown.
        const noSuch = `No ${f.label} "${slug}".`
        expectError(await stranger.get(onePath(f, slug, other)), 404, noSuch)
        expectError(await stranger.put(onePath(f, slug, other), { form: { name: 'x' } }), 404, noSuch)
        expectError(await stranger.delete(onePath(f, slug, other)), 404, noSuch)
        expect(await snapshot()).toBe(before)
        // Their own are theirs to manage.
        expect(await slugsOf(app, stranger, f, other)).toContain(`${other}-${f === THEME ? 'light' : 'loop'}`)
        const mine = await create(stranger, f, { name: 'Stranger made' }, other)
        expect((await stranger.delete(onePath(f, mine, other))).status).toBe(204)
      })

      it('unknown slugs answer 404 to those who see the platform', async () => {
        const msg = `No ${f.label} "ghost".`
        const publisher = await userWithProfile(app, `reader-${f.kind}`, 'default-publisher')
        expectError(await publisher.get(onePath(f, 'ghost')), 404, msg)
        expectError(await app.client.get(onePath(f, 'ghost')), 404, msg)
        expectError(await app.client.put(onePath(f, 'ghost'), { form: { name: 'x' } }), 404, msg)
        expectError(await app.client.delete(onePath(f, 'ghost')), 404, msg)
      })

      it('answers 401 without credentials, on every route, and changes nothing', async () => {
        const before = await snapshot()
        const slug = existing(f)
        for (const [method, path] of [
          ['GET', listPath(f)],
          ['POST', listPath(f)],
          ['GET', onePath(f, slug)],
          ['PUT', onePath(f, slug)],
          ['DELETE', onePath(f, slug)],
          ['GET', onePath(f, 'ghost')],
        ] as const) {
          const body = 'name=Hijacked'
          const res = await rawRequest(`${app.url}${path}`, method, {
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
            body,
          })
          expect(res.status).toBe(401)
          expect(res.headers['www-authenticate']).toMatch(/^Digest /)
          expect(text(parseXml(res.body).error.status)).toBe('401')
        }
        expect(await snapshot()).toBe(before)
      })
    })
  }
})
