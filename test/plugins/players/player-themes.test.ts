import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlayerThemeEntity, playerThemeQueries } from '../../../plugins/players/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, expectError, xmlOf } from '../identity/permissions.fixtures.js'
import { listener, refused, seen } from './events.fixtures.js'
import {
  LIGHT,
  THEME,
  type ThemeFields,
  create,
  createPlatform,
  entriesOf,
  expectInfo,
  listPath,
  onePath,
  slugsOf,
} from './players.helpers.js'

describe('player themes API', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp({ plugins: [listener] })
    other = await createPlatform(app.client, 'Other')
  })
  afterAll(async () => app?.close())

  const post = (form: Record<string, string>, platform = 'default') =>
    app.client.post(listPath(THEME, platform), { form })
  const put = (slug: string, form: Record<string, string>) => app.client.put(onePath(THEME, slug), { form })
  const info = (slug: string) => app.client.get(onePath(THEME, slug))
  const count = () => app.kernel.em().count(PlayerThemeEntity, {})

  it('answers info byte for byte: slug, name, settings, platform link', async () => {
    const res = await info('default-dark')
    expect(res.body).toBe(
      `${DECLARATION}<player_theme href="${app.url}/platform/default/player_theme/default-dark"><slug><![CDATA[default-dark]]></slug><name><![CDATA[Dark]]></name><background_color><![CDATA[#121212]]></background_color><text_color><![CDATA[#f5f5f5]]></text_color><accent_color><![CDATA[#4da3ff]]></accent_color><logo_url><![CDATA[]]></logo_url><logo_position><![CDATA[top-right]]></logo_position><platform href="${app.url}/platform/default"/></player_theme>`,
    )
  })

  it('answers the list byte for byte: href, and one player_theme per theme with href, slug, name', async () => {
    const res = await app.client.get(listPath(THEME))
    expect(res.body).toBe(
      `${DECLARATION}<player_themes href="${app.url}/platform/default/player_theme"><player_theme href="${app.url}/platform/default/player_theme/default-light"><slug><![CDATA[default-light]]></slug><name><![CDATA[Light]]></name></player_theme><player_theme href="${app.url}/platform/default/player_theme/default-dark"><slug><![CDATA[default-dark]]></slug><name><![CDATA[Dark]]></name></player_theme></player_themes>`,
    )
    expect(res.headers['content-range']).toBe('entities 0-1/2')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('POST with only a name answers 201 with the default settings (those of Light)', async () => {
    const res = await post({ name: 'Plain' })
    expectInfo(app, res, 201, THEME, { slug: 'plain', name: 'Plain', settings: LIGHT })
    expectInfo(app, await info('plain'), 200, THEME, { slug: 'plain', name: 'Plain', settings: LIGHT })
  })

  it('POST with every setting stores them: colors lowercased, the logo URL normalized', async () => {
    const res = await post({
      name: 'Brand',
      background_color: '#A1B2C3',
      text_color: '#000000',
      accent_color: '#fF0080',
      logo_url: 'HTTPS://CDN.Example.org/logos/brand logo.png?v=2',
      logo_position: 'bottom-left',
      slug: 'ignored',
    })
    const settings: ThemeFields = {
      background_color: '#a1b2c3',
      text_color: '#000000',
      accent_color: '#ff0080',
      logo_url: 'https://cdn.example.org/logos/brand%20logo.png?v=2',
      logo_position: 'bottom-left',
    }
    expectInfo(app, res, 201, THEME, { slug: 'brand', name: 'Brand', settings })
    expectInfo(app, await info('brand'), 200, THEME, { slug: 'brand', name: 'Brand', settings })
    expect(await playerThemeQueries.bySlug(app.kernel.services.reader, 'brand')).toMatchObject({
      backgroundColor: '#a1b2c3',
      logoUrl: 'https://cdn.example.org/logos/brand%20logo.png?v=2',
      logoPosition: 'bottom-left',
    })
    for (const position of ['top-left', 'top-right', 'bottom-right']) {
      const slug = await create(app.client, THEME, { name: `Logo ${position}`, logo_position: position })
      expect(text(xmlOf(await info(slug), 200).player_theme.logo_position)).toBe(position)
    }
    const plain = xmlOf(await post({ name: 'Plain http', logo_url: 'http://example.org' }), 201)
    expect(text(plain.player_theme.logo_url)).toBe('http://example.org/')
    // What the player embeds is what was checked: quotes and angle brackets are percent-encoded.
    const quoted = xmlOf(await post({ name: 'Quoted', logo_url: 'https://example.org/a"b<c>.png' }), 201)
    expect(text(quoted.player_theme.logo_url)).toBe('https://example.org/a%22b%3Cc%3E.png')
  })

  it('names may repeat; slugs come from the name, unique across platforms, and never change', async () => {
    expect(await create(app.client, THEME, { name: 'Plain' })).toBe('plain-2')
    expect(await create(app.client, THEME, { name: 'Plain' }, other)).toBe('plain-3')
    expect(await create(app.client, THEME, { name: 'Thème été' })).toBe('theme-ete')
    const longest = xmlOf(await post({ name: 'é'.repeat(255) }), 201)
    expect(text(longest.player_theme.name)).toBe('é'.repeat(255))
    expect(text(longest.player_theme.slug)).toBe('e'.repeat(64))
    const renamed = xmlOf(await put('theme-ete', { name: 'Winter', slug: 'nope' }), 200)
    expect(text(renamed.player_theme.slug)).toBe('theme-ete')
    expect(text(renamed.player_theme.name)).toBe('Winter')
    // Concurrent creations of one name all succeed, with distinct slugs.
    const answers = await Promise.all([1, 2, 3].map(() => post({ name: 'Race' })))
    expect(answers.map((res) => text(xmlOf(res, 201).player_theme.slug)).sort()).toEqual(['race', 'race-2', 'race-3'])
  })

  it('a name with ]]> or markup round-trips', async () => {
    const name = 'A ]]> B <b>&amp;</b> ../x'
    const res = await post({ name })
    const slug = text(xmlOf(res, 201).player_theme.slug)
    expect(res.body).toContain('<name><![CDATA[A ]]]]><![CDATA[> B <b>&amp;</b> ../x]]></name>')
    expect(text(xmlOf(await info(slug), 200).player_theme.name)).toBe(name)
    const entry = entriesOf(app, await app.client.get(listPath(THEME)), THEME).find((e) => text(e.slug) === slug)
    expect(text(entry!.name)).toBe(name)
  })

  it('lists in creation order, only the platform’s own, and pages with Range', async () => {
    const slugs = await slugsOf(app, app.client, THEME)
    expect(slugs.slice(0, 4)).toEqual(['default-light', 'default-dark', 'plain', 'brand'])
    expect(slugs).not.toContain('plain-3')
    expect(await slugsOf(app, app.client, THEME, other)).toEqual([`${other}-light`, `${other}-dark`, 'plain-3'])
    const page = await app.client.get(listPath(THEME), { headers: { range: 'entities=1-2' } })
    expect(entriesOf(app, page, THEME).map((e) => text(e.slug))).toEqual(['default-dark', 'plain'])
    expect(page.headers['content-range']).toBe(`entities 1-2/${slugs.length}`)
    const tail = await app.client.get(listPath(THEME), { headers: { range: `entities=${slugs.length - 1}-` } })
    expect(entriesOf(app, tail, THEME).map((e) => text(e.slug))).toEqual([slugs.at(-1)])
    expect(tail.headers['content-range']).toBe(`entities ${slugs.length - 1}-${slugs.length - 1}/${slugs.length}`)
    const past = await app.client.get(listPath(THEME), { headers: { range: 'entities=500-600' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe(`entities */${slugs.length}`)
    expect((await app.client.get(listPath(THEME), { headers: { range: 'rows=0-1' } })).status).toBe(416)
  })

  describe('validation (412), nothing stored', () => {
    const invalid = async (form: Record<string, string>, fields: Record<string, string>) => {
      const before = await count()
      expectError(await post(form), 412, INVALID, fields)
      expect(await count()).toBe(before)
    }
    const COLOR = 'must be a CSS hex color #rrggbb, for example #1a2b3c'

    it('name is required, at most 255 characters, without control characters', async () => {
      await invalid({}, { name: 'is required' })
      await invalid({ name: '   ', background_color: '#000000' }, { name: 'is required' })
      await invalid({ name: 'x'.repeat(256) }, { name: 'must be at most 255 characters' })
      await invalid({ name: 'a\u0001b' }, { name: 'must not contain control characters' })
    })

    it('colors are #rrggbb: not #fff, red, rgb() or #12345g; sent empty, cannot be empty', async () => {
      for (const bad of ['#fff', 'red', 'rgb(0,0,0)', '#12345g', '123456', '#1234567']) {
        await invalid({ name: 'C', background_color: bad }, { background_color: COLOR })
      }
      await invalid({ name: 'C', text_color: '' }, { text_color: 'cannot be empty' })
      await invalid({ name: 'C', accent_color: 'blue' }, { accent_color: COLOR })
    })

    it('logo_url is an absolute http(s) URL of at most 1024 characters, without credentials', async () => {
      const notHttp = 'must be an absolute http or https URL'
      for (const bad of [
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        'data:image/png;base64,AAAA',
        'ftp://example.org/logo.png',
        'file:///etc/passwd',
        '//example.org/logo.png',
        '/logo.png',
        'logo.png',
        'http://',
      ]) {
        await invalid({ name: 'L', logo_url: bad }, { logo_url: notHttp })
      }
      await invalid(
        { name: 'L', logo_url: 'https://user:secret@example.org/logo.png' },
        { logo_url: 'must not carry a user name or password' },
      )
      await invalid(
        { name: 'L', logo_url: `https://example.org/${'a'.repeat(1005)}` },
        { logo_url: 'must be at most 1024 characters' },
      )
      // Within 1024 as sent, over it once spaces are percent-encoded.
      await invalid(
        { name: 'L', logo_url: `https://example.org/${' '.repeat(500)}x` },
        { logo_url: 'must be at most 1024 characters' },
      )
      const longest = `https://example.org/${'a'.repeat(1004)}`
      expect(longest).toHaveLength(1024)
      expect(text(xmlOf(await post({ name: 'Longest logo', logo_url: longest }), 201).player_theme.logo_url)).toBe(
        longest,
      )
    })

    it('logo_position is one of the four corners', async () => {
      const message = 'must be one of: top-left, top-right, bottom-left, bottom-right'
      await invalid({ name: 'P', logo_position: 'center' }, { logo_position: message })
      await invalid({ name: 'P', logo_position: 'Top-Left' }, { logo_position: message })
      await invalid({ name: 'P', logo_position: '' }, { logo_position: 'cannot be empty' })
    })

    it('lists every failing field in one answer, in order', async () => {
      await invalid(
        {
          name: 'n'.repeat(256),
          background_color: '#fff',
          text_color: 'red',
          accent_color: '',
          logo_url: 'javascript:alert(1)',
          logo_position: 'middle',
        },
        {
          name: 'must be at most 255 characters',
          background_color: COLOR,
          text_color: COLOR,
          accent_color: 'cannot be empty',
          logo_url: 'must be an absolute http or https URL',
          logo_position: 'must be one of: top-left, top-right, bottom-left, bottom-right',
        },
      )
    })
  })

  describe('PUT /platform/<slug>/player_theme/<theme>', () => {
    it('is a partial update: nothing sent changes nothing; each setting changes alone', async () => {
      const slug = await create(app.client, THEME, { name: 'Editable' })
      let expected: ThemeFields = { ...LIGHT }
      expectInfo(app, await put(slug, {}), 200, THEME, { slug, name: 'Editable', settings: expected })
      const steps: [Record<string, string>, Partial<ThemeFields>][] = [
        [{ background_color: '#0A0A0A' }, { background_color: '#0a0a0a' }],
        [{ text_color: '#eeeeee' }, { text_color: '#eeeeee' }],
        [{ accent_color: '#00ff00' }, { accent_color: '#00ff00' }],
        [{ logo_url: 'https://example.org/l.svg' }, { logo_url: 'https://example.org/l.svg' }],
        [{ logo_position: 'bottom-right' }, { logo_position: 'bottom-right' }],
      ]
      for (const [form, change] of steps) {
        expected = { ...expected, ...change }
        expectInfo(app, await put(slug, form), 200, THEME, { slug, name: 'Editable', settings: expected })
      }
      expectInfo(app, await put(slug, { name: 'Edited' }), 200, THEME, { slug, name: 'Edited', settings: expected })
      // logo_url sent empty removes the logo.
      expected = { ...expected, logo_url: '' }
      expectInfo(app, await put(slug, { logo_url: '' }), 200, THEME, { slug, name: 'Edited', settings: expected })
      expectInfo(app, await info(slug), 200, THEME, { slug, name: 'Edited', settings: expected })
    })

    it('validates as on create; name and settings with a value cannot be emptied; nothing changes', async () => {
      const slug = await create(app.client, THEME, { name: 'Strict', accent_color: '#123456' })
      const settings = { ...LIGHT, accent_color: '#123456' }
      expectError(
        await put(slug, { name: '', background_color: '', text_color: '', accent_color: '', logo_position: '' }),
        412,
        INVALID,
        {
          name: 'cannot be empty',
          background_color: 'cannot be empty',
          text_color: 'cannot be empty',
          accent_color: 'cannot be empty',
          logo_position: 'cannot be empty',
        },
      )
      expectError(
        await put(slug, { name: 'x'.repeat(256), accent_color: '#fff', logo_url: 'javascript:alert(1)' }),
        412,
        INVALID,
        {
          name: 'must be at most 255 characters',
          accent_color: 'must be a CSS hex color #rrggbb, for example #1a2b3c',
          logo_url: 'must be an absolute http or https URL',
        },
      )
      expectInfo(app, await info(slug), 200, THEME, { slug, name: 'Strict', settings })
    })
  })

  describe('DELETE /platform/<slug>/player_theme/<theme>', () => {
    it('answers 204, removes the theme, and announces player_theme.deleting inside the transaction', async () => {
      const slug = await create(app.client, THEME, { name: 'Doomed' })
      const { id } = (await playerThemeQueries.bySlug(app.kernel.services.reader, slug))!
      const res = await app.client.delete(onePath(THEME, slug))
      expect(res.status).toBe(204)
      expect(res.body).toBe('')
      expect(seen.at(-1)).toEqual({ event: 'player_theme.deleting', ids: [id], inTransaction: true })
      expectError(await info(slug), 404, `No player theme "${slug}".`)
      expect(await app.kernel.em().count(PlayerThemeEntity, { slug })).toBe(0)
      expect(await slugsOf(app, app.client, THEME)).not.toContain(slug)
      expectError(await app.client.delete(onePath(THEME, slug)), 404, `No player theme "${slug}".`)
    })

    it('a listener that refuses keeps the theme (one transaction)', async () => {
      const slug = await create(app.client, THEME, { name: 'Kept' })
      const { id } = (await playerThemeQueries.bySlug(app.kernel.services.reader, slug))!
      refused.add(id)
      expectError(await app.client.delete(onePath(THEME, slug)), 403, 'The widgets refused.')
      expect(seen.at(-1)).toEqual({ event: 'player_theme.deleting', ids: [id], inTransaction: true })
      expect(text(xmlOf(await info(slug), 200).player_theme.slug)).toBe(slug)
      refused.delete(id)
    })

    it('deleting a platform announces the deletion of its themes, with their ids', async () => {
      const platform = await createPlatform(app.client, 'Gone soon')
      await create(app.client, THEME, { name: 'Extra' }, platform)
      const reader = app.kernel.services.reader
      const platformId = (await playerThemeQueries.bySlug(reader, `${platform}-light`))!.platformId
      const ids = (await playerThemeQueries.page(reader, platformId, 0, 10)).map((t) => t.id)
      expect(ids).toHaveLength(3)
      seen.length = 0
      expect((await app.client.delete(`/platform/${platform}`)).status).toBe(204)
      expect(seen.find((s) => s.event === 'player_theme.deleting')).toEqual({
        event: 'player_theme.deleting',
        ids,
        inTransaction: true,
      })
      for (const id of ids) expect(await playerThemeQueries.byId(reader, id)).toBeUndefined()
    })
  })

  it('unknown themes, themes of another platform under this path, and unknown platforms answer 404', async () => {
    for (const slug of ['ghost', `${other}-light`, 'plain-3']) {
      const msg = `No player theme "${slug}".`
      expectError(await info(slug), 404, msg)
      expectError(await put(slug, { name: 'x' }), 404, msg)
      expectError(await app.client.delete(onePath(THEME, slug)), 404, msg)
    }
    // The same theme under its own platform is there.
    expect(text(xmlOf(await app.client.get(onePath(THEME, 'plain-3', other)), 200).player_theme.name)).toBe('Plain')
    const msg = 'No platform "nowhere".'
    expectError(await app.client.get(listPath(THEME, 'nowhere')), 404, msg)
    expectError(await post({ name: 'x' }, 'nowhere'), 404, msg)
    expectError(await app.client.get(onePath(THEME, 'default-light', 'nowhere')), 404, msg)
    expectError(await app.client.put(onePath(THEME, 'default-light', 'nowhere'), { form: {} }), 404, msg)
    expectError(await app.client.delete(onePath(THEME, 'default-light', 'nowhere')), 404, msg)
  })
})
