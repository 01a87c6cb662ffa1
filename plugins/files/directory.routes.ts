import { type Emit, type HttpContext, type Router, invalid, reply } from '../../src/kernel/index.js'
import type { FilesDeps } from './files.deps.js'
import { directoryInfoXml, directoryListingXml, directorySearchXml } from './directory.xml.js'
import { createDirectory, deleteDirectory, renameDirectory } from './directory.service.js'
import { describeFiles, wantsToken } from './file-media.service.js'
import { fileQueries } from './file.queries.js'
import type { DirectoryView } from './files.types.js'
import { folderField, ownDirectory, requireFileFlag } from './files.lookup.js'
import { readName } from './name.fields.js'

const OWNER = 'the owner only (files are private); anyone else gets 404'

async function listing(c: HttpContext, emit: Emit, directory: DirectoryView | null) {
  const reader = c.reader
  const [subdirectories, files] = await Promise.all([
    fileQueries.directoriesIn(reader, c.principal.id, directory?.id ?? null),
    fileQueries.filesIn(reader, c.principal.id, directory?.id ?? null),
  ])
  const media = await describeFiles(emit, files, wantsToken(c))
  return reply.xml(200, directoryListingXml(c.links, directory, subdirectories, files, media))
}

/** A user's directories: the root at `/files`, one directory at a time, and the search. */
export function directoryRoutes(r: Router, deps: FilesDeps): void {
  r.get('/files', (c) => listing(c, deps.emit, null), {
    permission: 'any authenticated user: their own root directory',
  })

  r.get('/files/:directory', async (c) => listing(c, deps.emit, await ownDirectory(c)), { permission: OWNER })

  r.post(
    '/files/:directory',
    async (c) => {
      const parent = await ownDirectory(c)
      requireFileFlag(c, 'folder.create')
      const name = readName(c.fields(await c.form(), 'create'))!
      return reply.xml(
        201,
        directoryInfoXml(c.links, await createDirectory(deps, c.em, c.principal.id, parent.id, name)),
      )
    },
    { permission: `${OWNER}; profile folder.create` },
  )

  r.put(
    '/files/:directory',
    async (c) => {
      const directory = await ownDirectory(c)
      requireFileFlag(c, 'folder.create')
      const name = readName(c.fields(await c.form(), 'update'))
      if (name === undefined) return reply.xml(200, directoryInfoXml(c.links, directory))
      return reply.xml(200, directoryInfoXml(c.links, await renameDirectory(deps, c.em, directory, name)))
    },
    { permission: `${OWNER}; profile folder.create` },
  )

  r.delete(
    '/files/:directory',
    async (c) => {
      const directory = await ownDirectory(c)
      requireFileFlag(c, 'folder.create')
      requireFileFlag(c, 'file.delete')
      await deleteDirectory(deps, c.em, directory)
      return reply.noContent()
    },
    { permission: `${OWNER}; profile folder.create and file.delete (the files below go too)` },
  )

  r.get(
    '/search/directories',
    async (c) => {
      const query = c.query()
      const text = typeof query.name === 'string' ? query.name.trim() : ''
      const parent = typeof query.parent === 'string' ? query.parent.trim() : ''
      if (!text && !parent) {
        throw invalid({ name: 'is required: send part of a directory name' })
      }
      // `parent` (an extension): the subdirectories of one directory, `/` the root's.
      const all = parent
        ? await fileQueries.directoriesIn(c.reader, c.principal.id, await folderField(c, 'parent', parent))
        : await fileQueries.directoriesOf(c.reader, c.principal.id)
      // Compared in JavaScript: SQL lower() folds only ASCII on SQLite.
      const wanted = text.toLocaleLowerCase()
      const found = all.filter((directory) => directory.name.toLocaleLowerCase().includes(wanted))
      const search = [text && `name=${encodeURIComponent(text)}`, parent && `parent=${encodeURIComponent(parent)}`]
      const href = `${c.links.url('search', 'directories')}?${search.filter(Boolean).join('&')}`
      return reply.xml(
        200,
        directorySearchXml(
          c.links,
          href,
          await c.list(found.length, async (page) => found.slice(page.offset, page.offset + page.limit)),
        ),
      )
    },
    { permission: 'any authenticated user: searches their own directories only' },
  )
}
