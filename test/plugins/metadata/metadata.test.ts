import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EntityManager, type PluginDefinition, definePlugin, forbidden } from '../../../src/kernel/index.js'
import { MetadataDefinitionEntity } from '../../../plugins/metadata/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import {
  INVALID,
  NEEDS,
  expectError,
  grantOnPlatform,
  keysOf,
  userWithFlags,
  userWithProfile,
  xmlOf,
} from '../identity/permissions.fixtures.js'

interface Expected {
  slug: string
  name: string
  type: string
  fileType: string
  isProtected?: '0' | '1'
  defaultValue?: string
  platform?: string
}

const LIST_KEYS = ['@href', 'default_value', 'file_type', 'is_protected', 'name', 'slug', 'type']

function expectFields(app: TestApp, node: XmlObject, e: Expected): void {
  expect(node['@href']).toBe(`${app.url}/metadata/${e.slug}`)
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.name)).toBe(e.name)
  expect(text(node.type)).toBe(e.type)
  expect(text(node.file_type)).toBe(e.fileType)
  expect(text(node.is_protected)).toBe(e.isProtected ?? '0')
  expect(text(node.default_value)).toBe(e.defaultValue ?? '')
}

/** Definition info (info, create and update answers): exactly the list fields and the platform link. */
function expectInfo(app: TestApp, doc: XmlObject, e: Expected): void {
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['metadata'])
  const node = doc.metadata as XmlObject
  expect(keysOf(node)).toEqual([...LIST_KEYS, 'platform'].sort())
  expectFields(app, node, e)
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${e.platform ?? 'default'}` })
}

/** The entries of a list answer. */
const entries = (doc: XmlObject): XmlObject[] => list<XmlObject>(doc.metadata.metadata)
const slugsOf = (doc: XmlObject): string[] => entries(doc).map((m) => text(m.slug))

/** Creates a definition and returns its slug (asserting 201). */
async function create(client: DigestClient, form: Record<string, string>, platform = 'default'): Promise<string> {
  const res = await client.post(`/platform/${platform}/metadata`, { form: { file_type: 'video', ...form } })
  return text(xmlOf(res, 201).metadata.slug)
}

const post = (client: DigestClient, form: Record<string, string>, platform = 'default') =>
  client.post(`/platform/${platform}/metadata`, { form })

/** Every `metadata.deleted` seen: the definition's slug, and whether it came inside a transaction. */
const deletions: { slug: string; inTransaction: boolean }[] = []

/** A stand-in for the file store: records `metadata.deleted`, and refuses it for one name (to show the rollback). */
const listener: PluginDefinition = definePlugin({
  name: 'metadata-listener',
  dependsOn: ['metadata'],
  register(ctx) {
    ctx.on(
      'metadata.deleted',
      ({ em, definition }: { em: EntityManager; definition: { slug: string; name: string } }) => {
        deletions.push({ slug: definition.slug, inTransaction: em.isInTransaction() })
        if (definition.name === 'Kept by the file store') throw forbidden('The file store refused.')
      },
    )
  },
})

describe('metadata definitions API', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp({ plugins: [listener] })
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
  })
  afterAll(async () => app?.close())

  it('the platform info links to the list, which starts empty', async () => {
    const info = xmlOf(await app.client.get('/platform/default'), 200)
    expect(info.platform.metadata['@href']).toBe(`${app.url}/platform/default/metadata`)
    const res = await app.client.get('/platform/default/metadata')
    expect(xmlOf(res, 200).metadata).toEqual({ '@href': `${app.url}/platform/default/metadata` })
    expect(res.body).toContain(`<metadata href="${app.url}/platform/default/metadata"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it("POST answers 201 with the definition and its platform link; the spec example's username is ignored", async () => {
    const res = await post(app.client, {
      name: 'Genre',
      type: 'choice',
      file_type: 'video,audio',
      is_protected: '1',
      default_value: 'jazz,rock',
      username: 'nobody-at-all',
    })
    const expected = {
      slug: 'genre',
      name: 'Genre',
      type: 'choice',
      fileType: 'video,audio',
      isProtected: '1',
      defaultValue: 'jazz,rock',
    } as const
    expectInfo(app, xmlOf(res, 201), expected)
    expect(res.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<metadata href="${app.url}/metadata/genre"><slug><![CDATA[genre]]></slug><name><![CDATA[Genre]]></name><type><![CDATA[choice]]></type><file_type><![CDATA[video,audio]]></file_type><is_protected>1</is_protected><default_value><![CDATA[jazz,rock]]></default_value><platform href="${app.url}/platform/default"/></metadata>`,
    )
    expectInfo(app, xmlOf(await app.client.get('/metadata/genre'), 200), expected)
  })

  it('is_protected defaults to 0 and default_value to empty; true/false are accepted for is_protected', async () => {
    const slug = await create(app.client, { name: 'Plain', type: 'varchar', file_type: 'document' })
    expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), {
      slug,
      name: 'Plain',
      type: 'varchar',
      fileType: 'document',
    })
    const flagged = await create(app.client, { name: 'Flagged', type: 'boolean', is_protected: 'TRUE' })
    expect(text(xmlOf(await app.client.get(`/metadata/${flagged}`), 200).metadata.is_protected)).toBe('1')
    const unflagged = await create(app.client, { name: 'Unflagged', type: 'boolean', is_protected: 'false' })
    expect(text(xmlOf(await app.client.get(`/metadata/${unflagged}`), 200).metadata.is_protected)).toBe('0')
  })

  it('stores canonical forms: trimmed options, file types in the order sent without repeats, numbers and flags', async () => {
    const cases: [Record<string, string>, Partial<Expected>][] = [
      [
        { name: 'Mood', type: 'choice', file_type: ' image , video,image', default_value: ' calm , wild ' },
        { fileType: 'image,video', defaultValue: 'calm,wild' },
      ],
      [{ name: 'Season', type: 'integer', default_value: '+007' }, { defaultValue: '7' }],
      [{ name: 'Views', type: 'bigint', default_value: '9007199254740991' }, { defaultValue: '9007199254740991' }],
      [{ name: 'Featured', type: 'boolean', default_value: 'true' }, { defaultValue: '1' }],
      [{ name: 'Shot on', type: 'date', default_value: '2024-02-29' }, { defaultValue: '2024-02-29' }],
      [{ name: 'Summary', type: 'longvarchar', default_value: 'line 1\nline 2' }, { defaultValue: 'line 1\nline 2' }],
      [{ name: 'All kinds', type: 'varchar', file_type: 'video,audio,image,document,other' }, {}],
    ]
    for (const [form, expected] of cases) {
      const slug = await create(app.client, form)
      expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), {
        slug,
        name: form.name!,
        type: form.type!,
        fileType: (form.file_type ?? 'video').trim(),
        ...expected,
      })
    }
  })

  it('lists definitions in creation order with exactly the list fields, pages with Range, and only its platform', async () => {
    const doc = xmlOf(await app.client.get('/platform/default/metadata'), 200)
    const slugs = slugsOf(doc)
    expect(slugs.slice(0, 4)).toEqual(['genre', 'plain', 'flagged', 'unflagged'])
    for (const entry of entries(doc)) {
      expect(keysOf(entry)).toEqual(LIST_KEYS)
      expect(entry['@href']).toBe(`${app.url}/metadata/${text(entry.slug)}`)
    }
    expectFields(app, entries(doc)[0]!, {
      slug: 'genre',
      name: 'Genre',
      type: 'choice',
      fileType: 'video,audio',
      isProtected: '1',
      defaultValue: 'jazz,rock',
    })
    const page = await app.client.get('/platform/default/metadata', { headers: { range: 'entities=1-2' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['plain', 'flagged'])
    expect(page.headers['content-range']).toBe(`entities 1-2/${slugs.length}`)
    const tail = await app.client.get('/platform/default/metadata', {
      headers: { range: `entities=${slugs.length - 1}-` },
    })
    expect(slugsOf(xmlOf(tail, 200))).toEqual([slugs.at(-1)])
    const past = await app.client.get('/platform/default/metadata', { headers: { range: 'entities=500-600' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe(`entities */${slugs.length}`)
    expect((await app.client.get('/platform/default/metadata', { headers: { range: 'rows=0-1' } })).status).toBe(416)
    // The other platform has its own list, and the same name there is no clash.
    const elsewhere = await create(app.client, { name: 'Genre', type: 'varchar' }, other)
    expect(elsewhere).toBe('genre-2')
    expect(slugsOf(xmlOf(await app.client.get(`/platform/${other}/metadata`), 200))).toEqual(['genre-2'])
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/metadata'), 200))).toEqual(slugs)
    expectInfo(app, xmlOf(await app.client.get('/metadata/genre-2'), 200), {
      slug: 'genre-2',
      name: 'Genre',
      type: 'varchar',
      fileType: 'video',
      platform: other,
    })
  })

  it('slugs come from the name, are unique across platforms, and never change on rename', async () => {
    expect(await create(app.client, { name: 'Réalisateur / Director', type: 'varchar' })).toBe('realisateur-director')
    const longest = xmlOf(await post(app.client, { name: 'é'.repeat(255), type: 'varchar', file_type: 'video' }), 201)
    expect(text(longest.metadata.name)).toBe('é'.repeat(255))
    expect(text(longest.metadata.slug)).toBe('e'.repeat(64))
    const answers = await Promise.all(
      ['Race 1', 'Race 2', 'Race 3'].map((name) => post(app.client, { name, type: 'varchar', file_type: 'video' })),
    )
    expect(answers.map((res) => text(xmlOf(res, 201).metadata.slug)).sort()).toEqual(['race-1', 'race-2', 'race-3'])
    const put = await app.client.put('/metadata/realisateur-director', { form: { name: 'Director', slug: 'nope' } })
    expect(text(xmlOf(put, 200).metadata.slug)).toBe('realisateur-director')
    expect(text(xmlOf(await app.client.get('/metadata/realisateur-director'), 200).metadata.name)).toBe('Director')
    expectError(await app.client.get('/metadata/director'), 404, 'No metadata "director".')
  })

  describe('validation (412)', () => {
    const invalid = async (form: Record<string, string>, fields: Record<string, string>, platform = 'default') =>
      expectError(await post(app.client, form, platform), 412, INVALID, fields)

    it('name, type and file_type are required', async () => {
      await invalid({}, { name: 'is required', type: 'is required', file_type: 'is required' })
      await invalid(
        { name: '  ', type: '', file_type: '' },
        { name: 'is required', type: 'is required', file_type: 'is required' },
      )
    })

    it('name: at most 255 characters, no control characters, no brackets', async () => {
      const base = { type: 'varchar', file_type: 'video' }
      await invalid({ ...base, name: 'x'.repeat(256) }, { name: 'must be at most 255 characters' })
      await invalid({ ...base, name: 'a\u0001b' }, { name: 'must not contain control characters' })
      for (const name of ['a[b', 'a]b', 'tags[]']) {
        await invalid({ ...base, name }, { name: 'must not contain [ or ]: values are sent as metadata[<name>]' })
      }
    })

    it('name: unique on the platform, whatever the case', async () => {
      const base = { type: 'integer', file_type: 'audio' }
      await invalid({ ...base, name: 'Genre' }, { name: 'is already used on this platform' })
      await invalid({ ...base, name: 'GENRE' }, { name: 'is already used on this platform' })
      await invalid({ ...base, name: 'genre' }, { name: 'is already used on this platform' })
      // Concurrent creations of one name: exactly one succeeds.
      const answers = await Promise.all([1, 2, 3].map(() => post(app.client, { ...base, name: 'Once' })))
      expect(answers.map((res) => res.status).sort()).toEqual([201, 412, 412])
      for (const res of answers.filter((r) => r.status === 412)) {
        expectError(res, 412, INVALID, { name: 'is already used on this platform' })
      }
    })

    it('type: one of the seven', async () => {
      await invalid(
        { name: 'T', type: 'text', file_type: 'video' },
        { type: 'must be one of: varchar, longvarchar, integer, bigint, date, boolean, choice' },
      )
      await invalid(
        { name: 'T', type: 'Integer', file_type: 'video' },
        { type: 'must be one of: varchar, longvarchar, integer, bigint, date, boolean, choice' },
      )
    })

    it('file_type: a comma-separated list of known file types', async () => {
      const base = { name: 'F', type: 'varchar' }
      const shape = 'must be a comma-separated list of: video, audio, image, document, other'
      await invalid({ ...base, file_type: '' }, { file_type: 'is required' })
      await invalid({ ...base, file_type: ',' }, { file_type: shape })
      await invalid({ ...base, file_type: 'video,,audio' }, { file_type: shape })
      await invalid(
        { ...base, file_type: 'video,movie' },
        { file_type: 'unknown file type "movie": use video, audio, image, document, other' },
      )
      await invalid(
        { ...base, file_type: 'VIDEO' },
        { file_type: 'unknown file type "VIDEO": use video, audio, image, document, other' },
      )
    })

    it('is_protected: 0 or 1 (true/false)', async () => {
      await invalid(
        { name: 'P', type: 'varchar', file_type: 'video', is_protected: 'yes' },
        { is_protected: 'must be 0 or 1' },
      )
    })

    it('default_value must be a value of the type', async () => {
      const cases: [string, string, string][] = [
        ['integer', '2147483648', 'must be a whole number between -2147483648 and 2147483647'],
        ['integer', '1.5', 'must be a whole number between -2147483648 and 2147483647'],
        ['bigint', '9007199254740992', 'must be a whole number between -9007199254740991 and 9007199254740991'],
        ['bigint', 'ten', 'must be a whole number between -9007199254740991 and 9007199254740991'],
        ['date', '2023-02-29', 'must be an ISO 8601 date (YYYY-MM-DD)'],
        ['date', '2023-01-05T10:00:00Z', 'must be an ISO 8601 date (YYYY-MM-DD)'],
        ['boolean', 'yes', 'must be 0 or 1'],
        ['varchar', 'x'.repeat(256), 'must be at most 255 characters'],
        ['longvarchar', 'x'.repeat(65536), 'must be at most 65535 characters'],
      ]
      for (const [type, value, error] of cases) {
        await invalid(
          { name: `Default ${type}`, type, file_type: 'video', default_value: value },
          { default_value: error },
        )
      }
      await invalid(
        { name: 'D', type: 'varchar', file_type: 'video', default_value: 'a\u0000' },
        { default_value: 'must not contain control characters' },
      )
    })

    it('choice needs its options in default_value', async () => {
      const base = { name: 'C', type: 'choice', file_type: 'video' }
      const required = 'is required for the choice type: list the options, separated by commas'
      await invalid(base, { default_value: required })
      await invalid({ ...base, default_value: '' }, { default_value: required })
      await invalid({ ...base, default_value: ' , ' }, { default_value: 'must list the options, separated by commas' })
      await invalid(
        { ...base, default_value: 'a,,b' },
        { default_value: 'has an empty option: list the options, separated by commas' },
      )
      await invalid({ ...base, default_value: 'a,b,a' }, { default_value: 'lists the option "a" twice' })
      await invalid(
        { ...base, default_value: `a,${'x'.repeat(256)}` },
        { default_value: 'has an option longer than 255 characters' },
      )
    })

    it('lists every failing field in one answer, and stores nothing', async () => {
      const before = await app.kernel.em().count(MetadataDefinitionEntity, {})
      await invalid(
        { name: 'x'.repeat(256), type: 'nope', file_type: 'film', is_protected: '2', default_value: 'anything' },
        {
          name: 'must be at most 255 characters',
          type: 'must be one of: varchar, longvarchar, integer, bigint, date, boolean, choice',
          file_type: 'unknown file type "film": use video, audio, image, document, other',
          is_protected: 'must be 0 or 1',
        },
      )
      await invalid(
        { name: 'Ok name', type: 'integer', file_type: 'video', default_value: 'x' },
        { default_value: 'must be a whole number between -2147483648 and 2147483647' },
      )
      expect(await app.kernel.em().count(MetadataDefinitionEntity, {})).toBe(before)
    })
  })

  describe('PUT /metadata/<slug>', () => {
    const put = (slug: string, form: Record<string, string> = {}) => app.client.put(`/metadata/${slug}`, { form })

    it('is a partial update: nothing sent changes nothing; each field changes alone', async () => {
      const slug = await create(app.client, { name: 'Editable', type: 'integer', default_value: '3' })
      const base = { slug, name: 'Editable', type: 'integer', fileType: 'video', defaultValue: '3' }
      expectInfo(app, xmlOf(await put(slug), 200), base)
      expectInfo(app, xmlOf(await put(slug, { name: 'Edited' }), 200), { ...base, name: 'Edited' })
      expectInfo(app, xmlOf(await put(slug, { file_type: 'audio,video' }), 200), {
        ...base,
        name: 'Edited',
        fileType: 'audio,video',
      })
      expectInfo(app, xmlOf(await put(slug, { is_protected: '1' }), 200), {
        ...base,
        name: 'Edited',
        fileType: 'audio,video',
        isProtected: '1',
      })
      expectInfo(app, xmlOf(await put(slug, { default_value: '-12' }), 200), {
        ...base,
        name: 'Edited',
        fileType: 'audio,video',
        isProtected: '1',
        defaultValue: '-12',
      })
      // Sent empty: the default is cleared.
      const cleared = { ...base, name: 'Edited', fileType: 'audio,video', isProtected: '1', defaultValue: '' } as const
      expectInfo(app, xmlOf(await put(slug, { default_value: '' }), 200), cleared)
      expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), cleared)
    })

    it('required fields cannot be emptied; every field is validated as on create', async () => {
      const slug = await create(app.client, { name: 'Strict', type: 'varchar', default_value: 'v' })
      expectError(await put(slug, { name: '', type: '', file_type: '', is_protected: '' }), 412, INVALID, {
        name: 'cannot be empty',
        type: 'cannot be empty',
        file_type: 'cannot be empty',
        is_protected: 'must be 0 or 1',
      })
      expectError(await put(slug, { name: 'y'.repeat(256), file_type: 'video,tape' }), 412, INVALID, {
        name: 'must be at most 255 characters',
        file_type: 'unknown file type "tape": use video, audio, image, document, other',
      })
      expectError(await put(slug, { name: 'GENRE' }), 412, INVALID, { name: 'is already used on this platform' })
      expectError(await put(slug, { default_value: 'z'.repeat(256) }), 412, INVALID, {
        default_value: 'must be at most 255 characters',
      })
      expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), {
        slug,
        name: 'Strict',
        type: 'varchar',
        fileType: 'video',
        defaultValue: 'v',
      })
      // Its own name, in another case, is no clash.
      expect(text(xmlOf(await put(slug, { name: 'STRICT' }), 200).metadata.name)).toBe('STRICT')
    })

    it('changing type is allowed only when the default value stays valid', async () => {
      const slug = await create(app.client, { name: 'Count', type: 'integer', default_value: '5' })
      const info = (type: string, defaultValue: string) => ({
        slug,
        name: 'Count',
        type,
        fileType: 'video',
        defaultValue,
      })
      expectInfo(app, xmlOf(await put(slug, { type: 'bigint' }), 200), info('bigint', '5'))
      expectInfo(app, xmlOf(await put(slug, { type: 'varchar' }), 200), info('varchar', '5'))
      expectError(await put(slug, { type: 'date' }), 412, INVALID, {
        type: 'does not fit the current default_value "5", which must be an ISO 8601 date (YYYY-MM-DD); send a new default_value too',
      })
      // With a new default that fits, the change is made.
      expectInfo(
        app,
        xmlOf(await put(slug, { type: 'date', default_value: '2020-05-01' }), 200),
        info('date', '2020-05-01'),
      )
      // A new default that does not fit is reported on default_value.
      expectError(await put(slug, { type: 'integer', default_value: 'abc' }), 412, INVALID, {
        default_value: 'must be a whole number between -2147483648 and 2147483647',
      })
      // Without a default, any type but choice.
      expectInfo(app, xmlOf(await put(slug, { type: 'boolean', default_value: '' }), 200), info('boolean', ''))
      expectError(await put(slug, { type: 'choice' }), 412, INVALID, {
        type: 'cannot become choice without options: send them in default_value, separated by commas',
      })
      expectInfo(app, xmlOf(await put(slug, { type: 'choice', default_value: 'x, y' }), 200), info('choice', 'x,y'))
      // A choice keeps its options: they cannot be cleared, and must stay well formed.
      expectError(await put(slug, { default_value: '' }), 412, INVALID, {
        default_value: 'is required for the choice type: list the options, separated by commas',
      })
      expectError(await put(slug, { default_value: 'x,x' }), 412, INVALID, {
        default_value: 'lists the option "x" twice',
      })
      expectError(await put(slug, { type: 'boolean' }), 412, INVALID, {
        type: 'does not fit the current default_value "x,y", which must be 0 or 1; send a new default_value too',
      })
      // Options are text: a choice may become varchar and keep them as its default.
      expectInfo(app, xmlOf(await put(slug, { type: 'varchar' }), 200), info('varchar', 'x,y'))
      // A boolean default changes to its canonical form with the type.
      await put(slug, { default_value: 'true' })
      expectInfo(app, xmlOf(await put(slug, { type: 'boolean' }), 200), info('boolean', '1'))
    })
  })

  describe('DELETE /metadata/<slug>', () => {
    it('answers 204, removes the definition and emits metadata.deleted inside the transaction', async () => {
      const slug = await create(app.client, { name: 'Doomed', type: 'varchar' })
      const res = await app.client.delete(`/metadata/${slug}`)
      expect(res.status).toBe(204)
      expect(res.body).toBe('')
      expect(deletions.at(-1)).toEqual({ slug, inTransaction: true })
      expectError(await app.client.get(`/metadata/${slug}`), 404, `No metadata "${slug}".`)
      expect(await app.kernel.em().count(MetadataDefinitionEntity, { slug })).toBe(0)
      expect(slugsOf(xmlOf(await app.client.get('/platform/default/metadata'), 200))).not.toContain(slug)
      // The name is free again.
      expect(await create(app.client, { name: 'Doomed', type: 'date' })).toBe(slug)
    })

    it('a listener that fails the event keeps the definition (one transaction)', async () => {
      const slug = await create(app.client, { name: 'Kept by the file store', type: 'varchar' })
      expectError(await app.client.delete(`/metadata/${slug}`), 403, 'The file store refused.')
      expect(deletions.at(-1)).toEqual({ slug, inTransaction: true })
      expect(text(xmlOf(await app.client.get(`/metadata/${slug}`), 200).metadata.slug)).toBe(slug)
    })
  })

  it('deleting a platform deletes its definitions', async () => {
    const platform = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Short lived', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    const slug = await create(app.client, { name: 'Ephemeral', type: 'varchar' }, platform)
    expect((await app.client.delete(`/platform/${platform}`)).status).toBe(204)
    expect(await app.kernel.em().count(MetadataDefinitionEntity, { slug })).toBe(0)
    expectError(await app.client.get(`/metadata/${slug}`), 404, `No metadata "${slug}".`)
  })

  it('unknown definitions and platforms answer 404 on every endpoint', async () => {
    const msg = 'No metadata "ghost".'
    expectError(await app.client.get('/metadata/ghost'), 404, msg)
    expectError(await app.client.put('/metadata/ghost', { form: { name: 'x' } }), 404, msg)
    expectError(await app.client.delete('/metadata/ghost'), 404, msg)
    expectError(await app.client.get('/platform/nowhere/metadata'), 404, 'No platform "nowhere".')
    expectError(
      await post(app.client, { name: 'x', type: 'varchar', file_type: 'video' }, 'nowhere'),
      404,
      'No platform "nowhere".',
    )
  })

  it('answers 401 without credentials, and changes nothing', async () => {
    for (const [method, path] of [
      ['GET', '/platform/default/metadata'],
      ['POST', '/platform/default/metadata'],
      ['GET', '/metadata/genre'],
      ['PUT', '/metadata/genre'],
      ['DELETE', '/metadata/genre'],
    ] as const) {
      const body = 'name=Hijacked&type=varchar&file_type=video'
      const res = await rawRequest(`${app.url}${path}`, method, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
        body,
      })
      expect(res.status).toBe(401)
      expect(res.headers['www-authenticate']).toMatch(/^Digest /)
      expect(text(parseXml(res.body).error.status)).toBe('401')
    }
    expect(text(xmlOf(await app.client.get('/metadata/genre'), 200).metadata.name)).toBe('Genre')
    expect(await app.kernel.em().count(MetadataDefinitionEntity, { name: 'Hijacked' })).toBe(0)
  })
})

describe('metadata authorization', () => {
  let app: TestApp
  let other: string
  let slug: string

  beforeAll(async () => {
    app = await startApp()
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    slug = await create(app.client, { name: 'Guarded', type: 'varchar', default_value: 'v' })
    await create(app.client, { name: 'Second', type: 'integer' })
  })
  afterAll(async () => app?.close())

  const guarded = (s: string) => ({ slug: s, name: 'Guarded', type: 'varchar', fileType: 'video', defaultValue: 'v' })

  it('whoever sees the platform reads the definitions (a Viewer profile, no metadata flag); writes are 403', async () => {
    const viewer = await userWithProfile(app, 'viewer', 'default-viewer')
    expect(slugsOf(xmlOf(await viewer.get('/platform/default/metadata'), 200))).toEqual([slug, 'second'])
    const page = await viewer.get('/platform/default/metadata', { headers: { range: 'entities=1-1' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['second'])
    expect(page.headers['content-range']).toBe('entities 1-1/2')
    expectInfo(app, xmlOf(await viewer.get(`/metadata/${slug}`), 200), guarded(slug))
    const needs = NEEDS('metadata.manage')
    expectError(await post(viewer, { name: 'Mine', type: 'varchar', file_type: 'video' }), 403, needs)
    // Authorization comes before validation: invalid fields still get 403.
    expectError(await post(viewer, {}), 403, needs)
    expectError(await viewer.put(`/metadata/${slug}`, { form: { name: 'Mine' } }), 403, needs)
    expectError(await viewer.put(`/metadata/${slug}`, { form: { type: 'bogus' } }), 403, needs)
    expectError(await viewer.delete(`/metadata/${slug}`), 403, needs)
    expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), guarded(slug))
  })

  it('the seeded Publisher profile reads but does not manage', async () => {
    const publisher = await userWithProfile(app, 'publisher', 'default-publisher')
    expect(xmlOf(await publisher.get(`/metadata/${slug}`), 200).metadata.name).toBeDefined()
    expectError(await publisher.delete(`/metadata/${slug}`), 403, NEEDS('metadata.manage'))
  })

  it('platform.view through an access (no profile flag) is enough to read', async () => {
    const member = await userWithFlags(app, 'member', [])
    expectError(await member.get('/platform/default/metadata'), 404, 'No platform "default".')
    expectError(await member.get(`/metadata/${slug}`), 404, `No metadata "${slug}".`)
    await grantOnPlatform(app, 'member', 'default-viewer')
    expect(slugsOf(xmlOf(await member.get('/platform/default/metadata'), 200))).toEqual([slug, 'second'])
    expectInfo(app, xmlOf(await member.get(`/metadata/${slug}`), 200), guarded(slug))
  })

  it('without platform.view, metadata.manage alone sees nothing (404)', async () => {
    const blind = await userWithFlags(app, 'blind', ['metadata.manage'])
    const msg = `No metadata "${slug}".`
    expectError(await blind.get('/platform/default/metadata'), 404, 'No platform "default".')
    expectError(await post(blind, { name: 'X', type: 'varchar', file_type: 'video' }), 404, 'No platform "default".')
    expectError(await blind.get(`/metadata/${slug}`), 404, msg)
    expectError(await blind.put(`/metadata/${slug}`, { form: { name: 'X' } }), 404, msg)
    expectError(await blind.delete(`/metadata/${slug}`), 404, msg)
  })

  it('platform.view and metadata.manage allow every write', async () => {
    const manager = await userWithFlags(app, 'manager', ['platform.view', 'metadata.manage'])
    const mine = text(
      xmlOf(await post(manager, { name: 'Managed', type: 'date', file_type: 'image' }), 201).metadata.slug,
    )
    expect(
      text(xmlOf(await manager.put(`/metadata/${mine}`, { form: { name: 'Managed 2' } }), 200).metadata.name),
    ).toBe('Managed 2')
    expect((await manager.delete(`/metadata/${mine}`)).status).toBe(204)
  })

  it("another platform's definitions are invisible (404, as for missing ones), even to its administrators", async () => {
    const stranger = await userWithProfile(app, 'stranger', `${other}-administrator`)
    for (const [res, missing] of [
      [await stranger.get('/platform/default/metadata'), await stranger.get('/platform/nowhere/metadata')],
      [
        await post(stranger, { name: 'X', type: 'varchar', file_type: 'video' }),
        await post(stranger, { name: 'X', type: 'varchar', file_type: 'video' }, 'nowhere'),
      ],
      [await stranger.get(`/metadata/${slug}`), await stranger.get('/metadata/nowhere')],
      [
        await stranger.put(`/metadata/${slug}`, { form: { name: 'X' } }),
        await stranger.put('/metadata/nowhere', { form: { name: 'X' } }),
      ],
      [await stranger.delete(`/metadata/${slug}`), await stranger.delete('/metadata/nowhere')],
    ]) {
      expect(res!.status).toBe(404)
      expect(res!.body.replace('default', 'nowhere').replace(`"${slug}"`, '"nowhere"')).toBe(missing!.body)
    }
    // Their own platform works for them.
    const own = text(
      xmlOf(await post(stranger, { name: 'Guarded', type: 'boolean', file_type: 'audio' }, other), 201).metadata.slug,
    )
    expectInfo(app, xmlOf(await stranger.get(`/metadata/${own}`), 200), {
      slug: own,
      name: 'Guarded',
      type: 'boolean',
      fileType: 'audio',
      platform: other,
    })
    expect(slugsOf(xmlOf(await stranger.get(`/platform/${other}/metadata`), 200))).toEqual([own])
    expectInfo(app, xmlOf(await app.client.get(`/metadata/${slug}`), 200), guarded(slug))
  })
})
