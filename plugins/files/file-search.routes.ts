import { type HttpContext, type Router, reply, xml } from '../../src/kernel/index.js'
import { FILE_TYPES } from '../metadata/index.js'
import { describeFiles, wantsToken } from './file-media.service.js'
import { type FileIndexEntry, fileQueries } from './file.queries.js'
import { fileSummaryXml } from './file.xml.js'
import type { FilesDeps } from './files.deps.js'
import { folderField } from './files.lookup.js'
import { ENCODING_STATUSES } from './files.types.js'

/** The orders of `GET /search/files`: a word, `-` before it for the reverse. */
export const FILE_SORTS = ['created', '-created', 'name', '-name', 'size', '-size'] as const
type FileSort = (typeof FILE_SORTS)[number]

// Names compared as people read them, whatever the database's collation: `file 9` before `file 10`, `é` beside `e`.
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' })

const ORDERS: Record<FileSort, (a: FileIndexEntry, b: FileIndexEntry) => number> = {
  created: (a, b) => a.id - b.id,
  '-created': (a, b) => b.id - a.id,
  name: (a, b) => collator.compare(a.name, b.name) || a.id - b.id,
  '-name': (a, b) => collator.compare(b.name, a.name) || b.id - a.id,
  size: (a, b) => a.size - b.size || a.id - b.id,
  '-size': (a, b) => b.size - a.size || b.id - a.id,
}

/**
 * `GET /search/files`: the caller's files that pass the filters (name, type, encoding status, directory), in the
 * asked order, one Range page at a time. The database filters on the columns it indexes; names are matched and sorted
 * here (SQLite's lower() folds ASCII only), on one light row per file, and only the page's files are read in full.
 */
async function searchFiles(c: HttpContext, deps: FilesDeps) {
  const query = c.query()
  const fields = c.fields(query, 'update')
  const name = fields.string('name', { max: 255 })
  const type = fields.oneOf('type', FILE_TYPES)
  const status = fields.oneOf('status', ENCODING_STATUSES)
  const sort = fields.oneOf('sort', FILE_SORTS) ?? 'created'
  const folder = fields.string('folder', { max: 64 })
  fields.done()
  const directoryId = folder ? await folderField(c, 'folder', folder) : undefined

  const wanted = name?.toLocaleLowerCase()
  const index = (
    await fileQueries.fileIndex(c.reader, c.principal.id, {
      type: type ?? undefined,
      status: status ?? undefined,
      directoryId,
    })
  ).filter((entry) => !wanted || entry.name.toLocaleLowerCase().includes(wanted))
  index.sort(ORDERS[sort])

  const page = await c.list(index.length, async ({ offset, limit }) => {
    const ids = index.slice(offset, offset + limit).map((entry) => entry.id)
    const byId = await fileQueries.filesByIds(c.reader, ids)
    return ids.flatMap((id) => byId.get(id) ?? [])
  })
  const media = await describeFiles(deps.emit, page, wantsToken(c))
  const href = `${c.links.url('search', 'files')}${searchOf(query)}`
  return reply.xml(
    200,
    xml.el(
      'files',
      { href },
      page.map((file) => fileSummaryXml(c.links, file, media.get(file.id))),
    ),
  )
}

/** The query string of an answer's href: the filters as asked, in a fixed order. */
function searchOf(query: Record<string, unknown>): string {
  const params = new URLSearchParams()
  for (const key of ['name', 'type', 'status', 'folder', 'sort']) {
    const value = query[key]
    if (typeof value === 'string' && value.trim()) params.set(key, value.trim())
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

export function fileSearchRoutes(r: Router, deps: FilesDeps): void {
  r.get('/search/files', (c) => searchFiles(c, deps), {
    permission: 'any authenticated user: searches their own files only',
  })
}
