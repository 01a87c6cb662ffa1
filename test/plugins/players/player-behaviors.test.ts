import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlayerBehaviorEntity, playerBehaviorQueries } from '../../../plugins/players/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, expectError, xmlOf } from '../identity/permissions.fixtures.js'
import { listener, refused, seen } from './events.fixtures.js'
import {
  BEHAVIOR,
  type BehaviorFields,
  DEFAULT,
  create,
  createPlatform,
  entriesOf,
  expectInfo,
  listPath,
  onePath,
  slugsOf,
} from './players.helpers.js'

describe('player behaviors API', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp({ plugins: [listener] })
    other = await createPlatform(app.client, 'Other')
  })
  afterAll(async () => app?.close())

  const post = (form: Record<string, string>, platform = 'default') =>
    app.client.post(listPath(BEHAVIOR, platform), { form })
  const put = (slug: string, form: Record<string, string>) => app.client.put(onePath(BEHAVIOR, slug), { form })
  const info = (slug: string) => app.client.get(onePath(BEHAVIOR, slug))
  const count = () => app.kernel.em().count(PlayerBehaviorEntity, {})

  it('answers info byte for byte: flags and start_time as plain text, the language as its name with its code', async () => {
    const res = await post({
      name: 'Subtitled',
      autoplay: '1',
      muted: 'true',
      start_time: '90',
      subtitles_on: '1',
      subtitle_language: 'fr',
    })
    expect(res.body).toBe(
      `${DECLARATION}<player_behavior href="${app.url}/platform/default/player_behavior/subtitled"><slug><![CDATA[subtitled]]></slug><name><![CDATA[Subtitled]]></name><controls>1</controls><autoplay>1</autoplay><muted>1</muted><loop>0</loop><start_time>90</start_time><subtitles_on>1</subtitles_on><subtitle_language code="fr"><![CDATA[French]]></subtitle_language><platform href="${app.url}/platform/default"/></player_behavior>`,
    )
    expect(res.status).toBe(201)
    expect(await playerBehaviorQueries.bySlug(app.kernel.services.reader, 'subtitled')).toMatchObject({
      controls: true,
      autoplay: true,
      muted: true,
      loop: false,
      startTime: 90,
      subtitlesOn: true,
      subtitleLanguage: 'fr',
    })
  })

  it('answers the list byte for byte', async () => {
    const res = await app.client.get(listPath(BEHAVIOR, other))
    const entry = (slug: string, name: string) =>
      `<player_behavior href="${app.url}/platform/${other}/player_behavior/${slug}"><slug><![CDATA[${slug}]]></slug><name><![CDATA[${name}]]></name></player_behavior>`
    expect(res.body).toBe(
      `${DECLARATION}<player_behaviors href="${app.url}/platform/${other}/player_behavior">${entry(`${other}-default`, 'Default')}${entry(`${other}-autoplay-muted`, 'Autoplay muted')}${entry(`${other}-loop`, 'Loop')}</player_behaviors>`,
    )
    expect(res.headers['content-range']).toBe('entities 0-2/3')
  })

  it('POST with only a name answers 201 with the default settings (those of Default)', async () => {
    expectInfo(app, await post({ name: 'Plain' }), 201, BEHAVIOR, { slug: 'plain', name: 'Plain', settings: DEFAULT })
    expectInfo(app, await info('plain'), 200, BEHAVIOR, { slug: 'plain', name: 'Plain', settings: DEFAULT })
  })

  it('POST with every setting stores them; 0/1 and true/false both work', async () => {
    const settings: BehaviorFields = {
      controls: '0',
      autoplay: '1',
      muted: '1',
      loop: '1',
      start_time: '2147483647',
      subtitles_on: '0',
      subtitle_language: 'English',
      code: 'en',
    }
    const form = {
      name: 'Everything',
      controls: 'FALSE',
      autoplay: 'True',
      muted: '1',
      loop: '1',
      start_time: '+2147483647',
      subtitles_on: '0',
      subtitle_language: 'en',
    }
    expectInfo(app, await post(form), 201, BEHAVIOR, { slug: 'everything', name: 'Everything', settings })
    expectInfo(app, await info('everything'), 200, BEHAVIOR, { slug: 'everything', name: 'Everything', settings })
  })

  it('names may repeat, slugs never; a name with ]]> round-trips', async () => {
    expect(await create(app.client, BEHAVIOR, { name: 'Plain' })).toBe('plain-2')
    expect(await create(app.client, BEHAVIOR, { name: 'Plain' }, other)).toBe('plain-3')
    const name = 'x ]]> y'
    const res = await post({ name })
    expect(res.body).toContain('<name><![CDATA[x ]]]]><![CDATA[> y]]></name>')
    const slug = text(xmlOf(res, 201).player_behavior.slug)
    expect(slug).toBe('x-y')
    expect(text(xmlOf(await info(slug), 200).player_behavior.name)).toBe(name)
  })

  it('lists in creation order, only the platform’s own, and pages with Range', async () => {
    const slugs = await slugsOf(app, app.client, BEHAVIOR)
    expect(slugs).toEqual([
      'default-default',
      'default-autoplay-muted',
      'default-loop',
      'subtitled',
      'plain',
      'everything',
      'plain-2',
      'x-y',
    ])
    const page = await app.client.get(listPath(BEHAVIOR), { headers: { range: 'entities=3-4' } })
    expect(entriesOf(app, page, BEHAVIOR).map((e) => text(e.slug))).toEqual(['subtitled', 'plain'])
    expect(page.headers['content-range']).toBe('entities 3-4/8')
    const tail = await app.client.get(listPath(BEHAVIOR), { headers: { range: 'entities=6-' } })
    expect(entriesOf(app, tail, BEHAVIOR).map((e) => text(e.slug))).toEqual(['plain-2', 'x-y'])
    expect(tail.headers['content-range']).toBe('entities 6-7/8')
    const past = await app.client.get(listPath(BEHAVIOR), { headers: { range: 'entities=8-9' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe('entities */8')
  })

  describe('validation (412), nothing stored', () => {
    const invalid = async (form: Record<string, string>, fields: Record<string, string>) => {
      const before = await count()
      expectError(await post(form), 412, INVALID, fields)
      expect(await count()).toBe(before)
    }

    it('name: required, at most 255 characters', async () => {
      await invalid({ autoplay: '1' }, { name: 'is required' })
      await invalid({ name: 'x'.repeat(256) }, { name: 'must be at most 255 characters' })
    })

    it('flags are 0 or 1 (true/false), not empty', async () => {
      for (const field of ['controls', 'autoplay', 'muted', 'loop', 'subtitles_on']) {
        await invalid({ name: 'F', [field]: 'yes' }, { [field]: 'must be 0 or 1' })
        await invalid({ name: 'F', [field]: '2' }, { [field]: 'must be 0 or 1' })
        await invalid({ name: 'F', [field]: '' }, { [field]: 'must be 0 or 1' })
      }
    })

    it('start_time is a whole number of seconds from 0', async () => {
      const range = 'must be between 0 and 2147483647'
      await invalid({ name: 'S', start_time: '-1' }, { start_time: range })
      await invalid({ name: 'S', start_time: '2147483648' }, { start_time: range })
      await invalid({ name: 'S', start_time: '1.5' }, { start_time: 'must be a whole number' })
      await invalid({ name: 'S', start_time: '1m30' }, { start_time: 'must be a whole number' })
      await invalid({ name: 'S', start_time: '' }, { start_time: 'cannot be empty' })
    })

    it('subtitle_language is an ISO 639-1 code in lowercase', async () => {
      const message = 'must be an ISO 639-1 code in lowercase, for example fr'
      for (const bad of ['FR', 'fra', 'french', 'xx', 'f']) {
        await invalid({ name: 'L', subtitle_language: bad }, { subtitle_language: message })
      }
    })

    it('lists every failing field in one answer, in order', async () => {
      await invalid(
        {
          name: '',
          controls: 'on',
          autoplay: 'off',
          muted: '',
          loop: 'maybe',
          start_time: '-1',
          subtitles_on: 'x',
          subtitle_language: 'EN',
        },
        {
          name: 'is required',
          controls: 'must be 0 or 1',
          autoplay: 'must be 0 or 1',
          muted: 'must be 0 or 1',
          loop: 'must be 0 or 1',
          start_time: 'must be between 0 and 2147483647',
          subtitles_on: 'must be 0 or 1',
          subtitle_language: 'must be an ISO 639-1 code in lowercase, for example fr',
        },
      )
    })
  })

  describe('PUT /platform/<slug>/player_behavior/<behavior>', () => {
    it('is a partial update: nothing sent changes nothing; each setting changes alone', async () => {
      const slug = await create(app.client, BEHAVIOR, { name: 'Editable' })
      let expected: BehaviorFields = { ...DEFAULT }
      expectInfo(app, await put(slug, {}), 200, BEHAVIOR, { slug, name: 'Editable', settings: expected })
      const steps: [Record<string, string>, Partial<BehaviorFields>][] = [
        [{ controls: '0' }, { controls: '0' }],
        [{ autoplay: '1' }, { autoplay: '1' }],
        [{ muted: '1' }, { muted: '1' }],
        [{ loop: '1' }, { loop: '1' }],
        [{ start_time: '42' }, { start_time: '42' }],
        [{ subtitles_on: '1' }, { subtitles_on: '1' }],
        [{ subtitle_language: 'de' }, { subtitle_language: 'German', code: 'de' }],
      ]
      for (const [form, change] of steps) {
        expected = { ...expected, ...change }
        expectInfo(app, await put(slug, form), 200, BEHAVIOR, { slug, name: 'Editable', settings: expected })
      }
      // subtitle_language sent empty leaves the choice to the player.
      expected = { ...expected, subtitle_language: '', code: undefined }
      expectInfo(app, await put(slug, { subtitle_language: '', name: 'Edited' }), 200, BEHAVIOR, {
        slug,
        name: 'Edited',
        settings: expected,
      })
      expectInfo(app, await info(slug), 200, BEHAVIOR, { slug, name: 'Edited', settings: expected })
    })

    it('validates as on create, and changes nothing on failure', async () => {
      const slug = await create(app.client, BEHAVIOR, { name: 'Strict', loop: '1' })
      expectError(await put(slug, { name: '', start_time: '', loop: '' }), 412, INVALID, {
        name: 'cannot be empty',
        loop: 'must be 0 or 1',
        start_time: 'cannot be empty',
      })
      expectError(await put(slug, { name: 'y'.repeat(256), start_time: '-1', subtitle_language: 'zz' }), 412, INVALID, {
        name: 'must be at most 255 characters',
        start_time: 'must be between 0 and 2147483647',
        subtitle_language: 'must be an ISO 639-1 code in lowercase, for example fr',
      })
      expectInfo(app, await info(slug), 200, BEHAVIOR, { slug, name: 'Strict', settings: { ...DEFAULT, loop: '1' } })
    })
  })

  describe('DELETE /platform/<slug>/player_behavior/<behavior>', () => {
    it('answers 204, removes it, and announces player_behavior.deleting inside the transaction', async () => {
      const slug = await create(app.client, BEHAVIOR, { name: 'Doomed' })
      const { id } = (await playerBehaviorQueries.bySlug(app.kernel.services.reader, slug))!
      const res = await app.client.delete(onePath(BEHAVIOR, slug))
      expect(res.status).toBe(204)
      expect(res.body).toBe('')
      expect(seen.at(-1)).toEqual({ event: 'player_behavior.deleting', ids: [id], inTransaction: true })
      expectError(await info(slug), 404, `No player behavior "${slug}".`)
      expect(await app.kernel.em().count(PlayerBehaviorEntity, { slug })).toBe(0)
    })

    it('a listener that refuses keeps the behavior', async () => {
      const slug = await create(app.client, BEHAVIOR, { name: 'Kept' })
      const { id } = (await playerBehaviorQueries.bySlug(app.kernel.services.reader, slug))!
      refused.add(id)
      expectError(await app.client.delete(onePath(BEHAVIOR, slug)), 403, 'The widgets refused.')
      expect(text(xmlOf(await info(slug), 200).player_behavior.slug)).toBe(slug)
      refused.delete(id)
      expect((await app.client.delete(onePath(BEHAVIOR, slug))).status).toBe(204)
    })

    it('deleting a platform announces the deletion of its behaviors, with their ids', async () => {
      const platform = await createPlatform(app.client, 'Gone soon')
      const reader = app.kernel.services.reader
      const platformId = (await playerBehaviorQueries.bySlug(reader, `${platform}-loop`))!.platformId
      const ids = (await playerBehaviorQueries.page(reader, platformId, 0, 10)).map((b) => b.id)
      expect(ids).toHaveLength(3)
      seen.length = 0
      expect((await app.client.delete(`/platform/${platform}`)).status).toBe(204)
      expect(seen.find((s) => s.event === 'player_behavior.deleting')).toEqual({
        event: 'player_behavior.deleting',
        ids,
        inTransaction: true,
      })
      expect(await playerBehaviorQueries.count(reader, platformId)).toBe(0)
    })
  })

  it('unknown behaviors and behaviors of another platform under this path answer 404', async () => {
    for (const slug of ['ghost', `${other}-default`, 'plain-3']) {
      const msg = `No player behavior "${slug}".`
      expectError(await info(slug), 404, msg)
      expectError(await put(slug, { name: 'x' }), 404, msg)
      expectError(await app.client.delete(onePath(BEHAVIOR, slug)), 404, msg)
    }
    expectError(await app.client.get(listPath(BEHAVIOR, 'nowhere')), 404, 'No platform "nowhere".')
  })
})
