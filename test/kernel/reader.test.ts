import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonColumn } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'

describe('the kernel reader (SQLite, or PostgreSQL with MEDIACTL_TEST_DATABASE_URL)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('reads committed rows with prepared statements, one or all', async () => {
    const reader = app.kernel.services.reader
    const row = await reader.one<{ slug: string }>('select slug from platforms where slug = ?', ['default'])
    expect(row).toEqual({ slug: 'default' })
    expect(await reader.one('select slug from platforms where slug = ?', ['nope'])).toBeUndefined()
    expect((await reader.all<{ slug: string }>('select slug from platforms order by id')).map((r) => r.slug)).toEqual([
      'default',
    ])
  })

  it('sees what the ORM committed, and counts as a number on both databases', async () => {
    const reader = app.kernel.services.reader
    expect(await reader.count('select count(*) as n from platforms')).toBe(1)
    expect((await app.client.post('/platforms', { form: { name: 'Second', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    const n = await reader.count('select count(*) as n from platforms')
    expect(n).toBe(2)
    expect(typeof n).toBe('number')
    expect(await reader.count('select count(*) as n from platforms where slug = ?', ['none'])).toBe(0)
  })

  it('answers JSON columns parsed, whatever the database returns', async () => {
    const row = await app.kernel.services.reader.one<{ permissions: unknown }>(
      'select permissions from roles where slug = ?',
      ['default-viewer'],
    )
    expect(jsonColumn<string[]>(row!.permissions)).toEqual([
      'platform.view',
      'media.view',
      'stream.view',
      'resource.view',
    ])
    expect(jsonColumn<string[]>('["a"]')).toEqual(['a'])
    expect(jsonColumn<string[]>(['a'])).toEqual(['a'])
  })
})
