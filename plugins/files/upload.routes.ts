import type { FilesDeps } from './files.deps.js'
import { type Router, invalid, reply } from '../../src/kernel/index.js'
import { createDirectory } from './directory.service.js'
import { directoryInfoXml } from './directory.xml.js'
import { folderField, requireFileFlag } from './files.lookup.js'
import { readName } from './name.fields.js'
import { discard } from './upload.service.js'
import { readUploadBody, storeUpload } from './upload.form.js'

/**
 * `POST /files`: an upload (multipart, whole or in pieces), or, with `name` and no file
 * part, a new directory in the root (a real client does this).
 */
export function uploadRoutes(r: Router, deps: FilesDeps): void {
  r.post(
    '/files',
    async (c) => {
      const body = await readUploadBody(deps, c, c.principal, () => requireFileFlag(c, 'file.create'))
      if (!body.received && body.filename === undefined && typeof body.form.name === 'string') {
        requireFileFlag(c, 'folder.create')
        const name = readName(c.fields(body.form, 'create'))!
        return reply.xml(201, directoryInfoXml(c.links, await createDirectory(deps, c.em, c.principal.id, null, name)))
      }
      let directoryId: number | null = null
      const folder = body.form.folder
      if (folder !== undefined && folder !== '') {
        try {
          if (typeof folder !== 'string') throw invalid({ folder: 'must be a single directory slug' })
          directoryId = await folderField(c, 'folder', folder)
        } catch (error) {
          await discard(deps, c.em, body.received)
          throw error
        }
      }
      const outcome = await storeUpload(deps, c, c.principal, body, directoryId)
      if (!outcome.done) return reply.json(200, outcome.progress)
      return reply.xml(200, await deps.info(c, outcome.file, 'code'))
    },
    {
      permission:
        'any authenticated user into their own store; profile file.create to upload, folder.create for a directory (name only)',
      produces: 'application/json',
    },
  )
}
