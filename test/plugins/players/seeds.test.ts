import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_BEHAVIOR,
  DEFAULT_THEME,
  PlayerBehaviorEntity,
  PlayerThemeEntity,
  playerBehaviorQueries,
  playerThemeQueries,
} from '../../../plugins/players/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { text } from '../../helpers/xml.js'
import {
  AUTOPLAY_MUTED,
  BEHAVIOR,
  DARK,
  DEFAULT,
  LIGHT,
  LOOP,
  THEME,
  createPlatform,
  entriesOf,
  expectInfo,
  listPath,
  onePath,
  slugsOf,
} from './players.helpers.js'

describe('default player themes and behaviors', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  /** Names of a platform's rows, oldest first, straight from the database. */
  const names = async (entity: typeof PlayerThemeEntity | typeof PlayerBehaviorEntity, slug = 'default') => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug })
    const rows = await em.find(entity as typeof PlayerThemeEntity, { platform }, { orderBy: { id: 'asc' } })
    return rows.map((row) => row.name)
  }

  it('the first platform has Light and Dark, and Default, Autoplay muted and Loop, with their settings', async () => {
    const themes = entriesOf(app, await app.client.get(listPath(THEME)), THEME)
    expect(themes.map((t) => [text(t.slug), text(t.name)])).toEqual([
      ['default-light', 'Light'],
      ['default-dark', 'Dark'],
    ])
    expectInfo(app, await app.client.get(onePath(THEME, 'default-light')), 200, THEME, {
      slug: 'default-light',
      name: 'Light',
      settings: LIGHT,
    })
    expectInfo(app, await app.client.get(onePath(THEME, 'default-dark')), 200, THEME, {
      slug: 'default-dark',
      name: 'Dark',
      settings: DARK,
    })
    const behaviors = entriesOf(app, await app.client.get(listPath(BEHAVIOR)), BEHAVIOR)
    expect(behaviors.map((b) => [text(b.slug), text(b.name)])).toEqual([
      ['default-default', 'Default'],
      ['default-autoplay-muted', 'Autoplay muted'],
      ['default-loop', 'Loop'],
    ])
    for (const [slug, name, settings] of [
      ['default-default', 'Default', DEFAULT],
      ['default-autoplay-muted', 'Autoplay muted', AUTOPLAY_MUTED],
      ['default-loop', 'Loop', LOOP],
    ] as const) {
      expectInfo(app, await app.client.get(onePath(BEHAVIOR, slug)), 200, BEHAVIOR, { slug, name, settings })
    }
  })

  it('a platform created through the API gets its own, with slugs of its own', async () => {
    const slug = await createPlatform(app.client, 'Second site')
    expect(await slugsOf(app, app.client, THEME, slug)).toEqual([`${slug}-light`, `${slug}-dark`])
    expect(await slugsOf(app, app.client, BEHAVIOR, slug)).toEqual([
      `${slug}-default`,
      `${slug}-autoplay-muted`,
      `${slug}-loop`,
    ])
    expectInfo(app, await app.client.get(onePath(THEME, `${slug}-dark`, slug)), 200, THEME, {
      slug: `${slug}-dark`,
      name: 'Dark',
      platform: slug,
      settings: DARK,
    })
    expectInfo(app, await app.client.get(onePath(BEHAVIOR, `${slug}-autoplay-muted`, slug)), 200, BEHAVIOR, {
      slug: `${slug}-autoplay-muted`,
      name: 'Autoplay muted',
      platform: slug,
      settings: AUTOPLAY_MUTED,
    })
  })

  it('the exported queries give plain views with camelCase settings, and the defaults match the seeds', async () => {
    const reader = app.kernel.services.reader
    const light = await playerThemeQueries.bySlug(reader, 'default-light')
    const platform = await app.kernel.em().findOneOrFail(PlatformEntity, { slug: 'default' })
    expect(light).toEqual({
      id: light!.id,
      slug: 'default-light',
      name: 'Light',
      platformId: platform.id,
      platformSlug: 'default',
      ...DEFAULT_THEME,
    })
    expect(await playerThemeQueries.byId(reader, light!.id)).toEqual(light)
    const behavior = await playerBehaviorQueries.bySlug(reader, 'default-default')
    expect(behavior).toEqual({
      id: behavior!.id,
      slug: 'default-default',
      name: 'Default',
      platformId: platform.id,
      platformSlug: 'default',
      ...DEFAULT_BEHAVIOR,
    })
    expect(DEFAULT_BEHAVIOR).toEqual({
      controls: true,
      autoplay: false,
      muted: false,
      loop: false,
      startTime: 0,
      subtitlesOn: false,
      subtitleLanguage: null,
    })
    const loop = await playerBehaviorQueries.bySlug(reader, 'default-loop')
    expect(loop).toMatchObject({ loop: true, autoplay: false, controls: true })
    expect(await playerBehaviorQueries.byId(reader, loop!.id)).toEqual(loop)
    expect(await playerThemeQueries.bySlug(reader, 'nope')).toBeUndefined()
    expect(await playerBehaviorQueries.byId(reader, 999_999)).toBeUndefined()
  })

  it('seeding again changes nothing, and leaves renamed or deleted defaults as the operator left them', async () => {
    await app.kernel.seed()
    expect(await names(PlayerThemeEntity)).toEqual(['Light', 'Dark'])
    expect(await names(PlayerBehaviorEntity)).toEqual(['Default', 'Autoplay muted', 'Loop'])
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    const dark = await em.findOneOrFail(PlayerThemeEntity, { platform, name: 'Dark' })
    dark.name = 'Night'
    await em.flush()
    await em.nativeDelete(PlayerBehaviorEntity, { platform, name: 'Loop' })
    await app.kernel.seed()
    expect(await names(PlayerThemeEntity)).toEqual(['Light', 'Night'])
    expect(await names(PlayerBehaviorEntity)).toEqual(['Default', 'Autoplay muted'])
  })

  it('seeding gives the defaults back to a platform that has none of a family', async () => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    await em.nativeDelete(PlayerThemeEntity, { platform })
    await app.kernel.seed()
    expect(await names(PlayerThemeEntity)).toEqual(['Light', 'Dark'])
    // Fresh rows, with the default slugs free again.
    expect(await slugsOf(app, app.client, THEME)).toEqual(['default-light', 'default-dark'])
    expect(await names(PlayerBehaviorEntity)).toEqual(['Default', 'Autoplay muted'])
  })

  it("deleting a platform deletes its themes and behaviors, and nobody else's", async () => {
    const slug = await createPlatform(app.client, 'Short lived')
    expect((await app.client.delete(`/platform/${slug}`)).status).toBe(204)
    const em = app.kernel.em()
    expect(await em.count(PlayerThemeEntity, { slug: { $like: `${slug}-%` } })).toBe(0)
    expect(await em.count(PlayerBehaviorEntity, { slug: { $like: `${slug}-%` } })).toBe(0)
    expect(await slugsOf(app, app.client, THEME)).toEqual(['default-light', 'default-dark'])
    expect(await names(PlayerBehaviorEntity)).toEqual(['Default', 'Autoplay muted'])
  })
})
