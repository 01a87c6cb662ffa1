import { readFileSync } from 'node:fs'
import { format } from 'prettier'
import { describe, expect, it } from 'vitest'
import { permissionTable, routeRows, withTable } from '../../src/app/authorization-doc.js'

describe('docs/authorization.md', () => {
  it('gives every authenticated route a permission sentence', async () => {
    const missing = (await routeRows()).filter((r) => !r.permission).map((r) => `${r.method} ${r.path}`)
    expect(missing).toEqual([])
  })

  it('lists every endpoint with its permission exactly as the code declares it (npm run docs:authz)', async () => {
    const file = new URL('../../docs/authorization.md', import.meta.url)
    const current = readFileSync(file, 'utf8')
    const expected = await format(withTable(current, permissionTable(await routeRows())), {
      parser: 'markdown',
      ...prettierOptions(),
    })
    expect(current).toBe(expected)
  })
})

function prettierOptions(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL('../../.prettierrc.json', import.meta.url), 'utf8')) as Record<string, unknown>
}
