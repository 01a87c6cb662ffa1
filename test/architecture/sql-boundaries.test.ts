import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/shared/package-root.js'

/**
 * Each plugin owns its SQL: what it publishes to others is functions and types (a port, a
 * service, a query function with its row mapping), never statements, fragments or column
 * lists another plugin would splice into its own queries (docs/decisions/0244-one-read-path-the-kernels-reader-sql-owned-by-the.md).
 */

/** Whether a string reads as SQL: a statement, a join, or a list of aliased columns (`r.id, r.slug`). */
export function looksLikeSql(text: string): boolean {
  return (
    /^\s*select\s+(distinct\s+)?(\w+\.)?(\*|\w+)\s*(,|from\b|as\b)/i.test(text) ||
    /^\s*with\s+(recursive\s+)?\w+(\([^)]*\))?\s+as\s*\(/i.test(text) ||
    /\bjoin\b[\s\S]*\bon\b/i.test(text) ||
    /^\s*(insert into|update \w+ set|delete from)\b/i.test(text) ||
    /\b[a-z]\w*\.[a-z_]+\s*,\s*[a-z]\w*\.[a-z_]+/.test(text)
  )
}

describe("a plugin's public entry exports no SQL", () => {
  it('no string exported by a plugin index reads as SQL', async () => {
    const dir = join(packageRoot(), 'plugins')
    const found: string[] = []
    for (const plugin of readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const entry = (await import(join(dir, plugin.name, 'index.ts'))) as Record<string, unknown>
      for (const [name, value] of Object.entries(entry)) {
        if (typeof value === 'string' && looksLikeSql(value)) found.push(`${plugin.name}: ${name}`)
      }
    }
    expect(found).toEqual([])
  })

  it('the check knows SQL when it sees it, and leaves other text alone', () => {
    expect(looksLikeSql('select id from streams where id = ?')).toBe(true)
    expect(looksLikeSql('with recursive chain(id) as (select id from streams)')).toBe(true)
    expect(looksLikeSql('resources r join files f on f.id = r.file_id')).toBe(true)
    expect(looksLikeSql('r.id, r.slug, r.title')).toBe(true)
    expect(looksLikeSql('delete from channels where media_id = ?')).toBe(true)
    expect(looksLikeSql('resources.details')).toBe(false)
    expect(looksLikeSql('Select the file to publish from your computer.')).toBe(false)
    expect(looksLikeSql('video/mp4, audio/mpeg')).toBe(false)
  })
})
