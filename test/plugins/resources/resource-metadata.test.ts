import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import {
  INVALID,
  type Place,
  entriesOf,
  expectError,
  makePlace,
  publish,
  published,
  resourceOf,
  uploadDocument,
  xmlOf,
} from './resources.helpers.js'

const PROTECTED = 'is protected: a resource shows the value set on its file, set it there'

/** The `<metadata>` children of a resource or file element: slug → [name attribute, text]. */
function valuesOf(node: XmlObject): Record<string, [string, string]> {
  const metadata = node.metadata as XmlObject | ''
  if (metadata === '') return {}
  return Object.fromEntries(
    Object.entries(metadata).map(([slug, value]) => [slug, [(value as XmlObject)['@name'], text(value)]]),
  )
}

describe('resource metadata: inherited from the file, overridden unless protected', () => {
  let app: TestApp
  let admin: DigestClient
  let place: Place
  let file: string

  /** Creates a metadata definition (asserting 201) and returns its slug. */
  async function define(form: Record<string, string>, platform = 'default'): Promise<string> {
    const res = await admin.post(`/platform/${platform}/metadata`, { form: { type: 'varchar', ...form } })
    return text(xmlOf(res, 201).metadata.slug)
  }

  const resource = async (slug: string) => resourceOf(await admin.get(`/resource/${slug}`), 200)
  const fileInfo = async (slug: string) => xmlOf(await admin.get(`/file/${slug}`), 200).file as XmlObject

  beforeAll(async () => {
    app = await startApp()
    admin = app.client
    place = await makePlace(admin, 'Archive')
    expect(await define({ name: 'Genre', file_type: 'document,video' })).toBe('genre')
    expect(await define({ name: 'Rights', file_type: 'document', is_protected: '1' })).toBe('rights')
    expect(await define({ name: 'Episode', type: 'integer', file_type: 'document' })).toBe('episode')
    expect(await define({ name: 'Frame rate', file_type: 'video' })).toBe('frame-rate')
    file = await uploadDocument(admin, 'essay.pdf')
    const res = await admin.put(`/file/${file}`, { form: { 'metadata[Genre]': 'Jazz', 'metadata[Rights]': 'CC-BY' } })
    expect(res.status, res.body).toBe(200)
  })
  afterAll(async () => app?.close())

  it("a resource shows its file's values, named after the definition's slug with its name", async () => {
    const node = resourceOf(await publish(admin, place.stream, { file, title: 'Inherits', visibility: 'visible' }), 201)
    expect(valuesOf(node)).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'] })
    // Lists carry them too, as the real answers do.
    const [entry] = entriesOf(await admin.get(`/stream/${place.stream}/resources`))
    expect(valuesOf(entry!)).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'] })
  })

  it('a value set on the resource overrides a non-protected one; the file keeps its own', async () => {
    const node = resourceOf(
      await publish(admin, place.stream, {
        file,
        title: 'Overrides',
        visibility: 'visible',
        'metadata[Genre]': 'Rock',
        'metadata[Episode]': '+07',
      }),
      201,
    )
    expect(valuesOf(node)).toEqual({ genre: ['Genre', 'Rock'], rights: ['Rights', 'CC-BY'], episode: ['Episode', '7'] })
    // Integers are plain text, strings CDATA.
    const body = (await admin.get(`/resource/${text(node.slug)}`)).body
    expect(body).toContain('<episode name="Episode">7</episode>')
    expect(body).toContain('<genre name="Genre"><![CDATA[Rock]]></genre>')
    expect(valuesOf(await fileInfo(file))).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'] })
  })

  it("a later change of the file's value shows on resources that do not override it", async () => {
    const plain = await published(admin, place.stream, { file, title: 'Follows', visibility: 'visible' })
    const own = await published(admin, place.stream, {
      file,
      title: 'Keeps its own',
      visibility: 'visible',
      'metadata[Genre]': 'Blues',
    })
    expect((await admin.put(`/file/${file}`, { form: { 'metadata[Genre]': 'Soul' } })).status).toBe(200)
    expect(valuesOf(await resource(plain)).genre).toEqual(['Genre', 'Soul'])
    expect(valuesOf(await resource(own)).genre).toEqual(['Genre', 'Blues'])
    expect((await admin.put(`/file/${file}`, { form: { 'metadata[Genre]': 'Jazz' } })).status).toBe(200)
  })

  it('setting a protected definition on the resource: 412 naming metadata[<name>]; the file value still shows', async () => {
    expectError(
      await publish(admin, place.stream, { file, title: 'Nope', visibility: 'visible', 'metadata[Rights]': 'Mine' }),
      412,
      INVALID,
      { 'metadata[Rights]': PROTECTED },
    )
    const slug = await published(admin, place.stream, { file, title: 'Protected', visibility: 'visible' })
    const before = (await admin.get(`/resource/${slug}`)).body
    expectError(
      await admin.put(`/resource/${slug}`, { form: { title: 'Changed', 'metadata[Rights]': 'All mine' } }),
      412,
      INVALID,
      { 'metadata[Rights]': PROTECTED },
    )
    expect((await admin.get(`/resource/${slug}`)).body).toBe(before)
    expect(valuesOf(await resource(slug)).rights).toEqual(['Rights', 'CC-BY'])
  })

  it("clearing the resource's value (sent empty) shows the file's again", async () => {
    const slug = await published(admin, place.stream, {
      file,
      title: 'Cleared',
      visibility: 'visible',
      'metadata[Genre]': 'Funk',
      'metadata[Episode]': '3',
    })
    const node = resourceOf(await admin.put(`/resource/${slug}`, { form: { 'metadata[Genre]': '' } }), 200)
    expect(valuesOf(node)).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'], episode: ['Episode', '3'] })
    // Clearing what the file alone holds changes nothing, and a protected one may be sent empty.
    const again = resourceOf(
      await admin.put(`/resource/${slug}`, { form: { 'metadata[Rights]': '', 'metadata[Episode]': '' } }),
      200,
    )
    expect(valuesOf(again)).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'] })
  })

  it('values are checked as on files: type, file type, unknown names', async () => {
    expectError(
      await publish(admin, place.stream, {
        file,
        title: 'Bad values',
        visibility: 'visible',
        'metadata[Episode]': 'seven',
        'metadata[Frame rate]': '25',
        'metadata[Mood]': 'calm',
      }),
      412,
      INVALID,
      {
        'metadata[Episode]': 'must be a whole number between -2147483648 and 2147483647',
        'metadata[Frame rate]': 'does not apply to document files (only to: video)',
        'metadata[Mood]': 'no metadata definition of this name on this platform',
      },
    )
  })

  it('a definition made protected later: the file value shows over the resource one', async () => {
    const slug = await published(admin, place.stream, {
      file,
      title: 'Protected later',
      visibility: 'visible',
      'metadata[Genre]': 'Disco',
    })
    const protect = await admin.put('/metadata/genre', { form: { is_protected: '1' } })
    expect(protect.status, protect.body).toBe(200)
    try {
      expect(valuesOf(await resource(slug)).genre).toEqual(['Genre', 'Jazz'])
    } finally {
      expect((await admin.put('/metadata/genre', { form: { is_protected: '0' } })).status).toBe(200)
    }
    expect(valuesOf(await resource(slug)).genre).toEqual(['Genre', 'Disco'])
  })

  it('deleting a definition drops its values from the resources (and their files)', async () => {
    expect(await define({ name: 'Season', type: 'integer', file_type: 'document' })).toBe('season')
    expect((await admin.put(`/file/${file}`, { form: { 'metadata[Season]': '1' } })).status).toBe(200)
    const slug = await published(admin, place.stream, {
      file,
      title: 'Seasonal',
      visibility: 'visible',
      'metadata[Season]': '2',
    })
    expect(valuesOf(await resource(slug)).season).toEqual(['Season', '2'])
    expect((await admin.delete('/metadata/season')).status).toBe(204)
    expect(valuesOf(await resource(slug)).season).toBeUndefined()
    // Gone from the stored row, not only from the answer: a new definition of the same name starts empty.
    const rows = await app.kernel
      .em()
      .execute<{ metadata: unknown }[]>('select metadata from resources where slug = ?', [slug])
    const stored = typeof rows[0]!.metadata === 'string' ? JSON.parse(rows[0]!.metadata) : rows[0]!.metadata
    expect(Object.keys(stored as object)).toHaveLength(0)
    expect(await define({ name: 'Season', type: 'integer', file_type: 'document' })).toBe('season')
    expect(valuesOf(await resource(slug)).season).toBeUndefined()
  })

  it("a resource published across platforms by an installation administrator shows its file's values", async () => {
    const platform = text(
      xmlOf(await admin.post('/platforms', { form: { name: 'Partner', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    // A definition of the same name on the stream's platform: the file's platform decides, as for the file's own values.
    await define({ name: 'Genre', file_type: 'document' }, platform)
    const there = await makePlace(admin, 'Partner TV', platform)
    const node = resourceOf(
      await publish(admin, there.stream, { file, title: 'Abroad', visibility: 'visible', 'metadata[Episode]': '9' }),
      201,
    )
    expect(valuesOf(node)).toEqual({ genre: ['Genre', 'Jazz'], rights: ['Rights', 'CC-BY'], episode: ['Episode', '9'] })
    const updated = resourceOf(
      await admin.put(`/resource/${text(node.slug)}`, { form: { 'metadata[Genre]': 'Pop' } }),
      200,
    )
    expect(valuesOf(updated).genre).toEqual(['Genre', 'Pop'])
  })
})
