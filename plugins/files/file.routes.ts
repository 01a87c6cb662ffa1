import { type Router, reply } from '../../src/kernel/index.js'
import type { FilesDeps } from './files.deps.js'
import { checkMetadataValues, metadataQueries } from '../metadata/index.js'
import { fileQueries } from './file.queries.js'
import { deleteFile, updateFile } from './file.service.js'
import { fileStatusXml } from './file.xml.js'
import { folderField, ownFile, requireFileFlag } from './files.lookup.js'
import { nameField } from './name.fields.js'

const OWNER = 'the owner only (files are private); anyone else gets 404'

/** One file: info, status, partial update (name, metadata values, directory), delete. */
export function fileRoutes(r: Router, deps: FilesDeps): void {
  r.get('/file/:file', async (c) => reply.xml(200, await deps.info(c, await ownFile(c))), {
    permission: OWNER,
  })

  r.get('/file/:file/status', async (c) => reply.xml(200, fileStatusXml(c.links, await ownFile(c))), {
    permission: OWNER,
  })

  r.put(
    '/file/:file',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.edit')
      const form = await c.form()
      const fields = c.fields(form, 'update')
      const name = nameField(fields)
      // `folder` (an extension): moves the file into another of the owner's directories, `/` the root.
      const folder = fields.string('folder', { max: 64 })
      const metadata = typeof form.metadata === 'object' && !Array.isArray(form.metadata) ? form.metadata : undefined
      const definitions = await metadataQueries.ofPlatform(c.reader, file.platformId)
      // One 412 lists every failing field, the name's and the values' (API-DECISIONS: Inputs and updates).
      if (metadata) {
        for (const [field, message] of Object.entries(checkMetadataValues(definitions, metadata, file.type).errors)) {
          fields.fail(field, message)
        }
      }
      fields.done()
      const directoryId = folder ? await folderField(c, 'folder', folder) : undefined
      await updateFile(c.em, file, { name, metadata, directoryId }, definitions)
      const updated = (await fileQueries.fileById(c.reader, file.id))!
      return reply.xml(200, await deps.info(c, updated))
    },
    { permission: `${OWNER}; profile file.edit` },
  )

  r.delete(
    '/file/:file',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.delete')
      await deleteFile(deps, c.em, file)
      return reply.noContent()
    },
    { permission: `${OWNER}; profile file.delete` },
  )
}
