import { type HttpContext, type Router, invalid, reply } from '../../src/kernel/index.js'
import { type FileView, fileQueries, ownFile, requireFileFlag, wantsToken } from '../files/index.js'
import { SNAPSHOT_FIELD, uploadCustomSnapshot } from './custom-snapshot.service.js'
import type { EncodingDeps } from './encoding.deps.js'
import { renditionQueries } from './rendition.queries.js'
import { selectSnapshot } from './rendition.service.js'
import { snapshotsXml } from './snapshot.xml.js'

const OWNER = 'the owner only (files are private); anyone else gets 404'

/** `GET` and `POST /file/<slug>/snapshots`: the frames a video's thumbnail is chosen from. */
export function snapshotRoutes(r: Router, deps: EncodingDeps): void {
  const { media } = deps
  const answer = async (c: HttpContext, file: FileView, status: number) => {
    const snapshots = await renditionQueries.snapshots(c.reader, file.id)
    return reply.xml(status, snapshotsXml(c.links, media, file, snapshots, wantsToken(c)))
  }

  // 202, as the spec shows.
  r.get('/file/:file/snapshots', async (c) => answer(c, await ownFile(c), 202), { permission: OWNER })

  r.post(
    '/file/:file/snapshots',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.edit')
      const upload = await uploadCustomSnapshot(deps, c, file)
      if (!upload.received) {
        const id = upload.form.id
        if (typeof id !== 'string' || !id.trim()) {
          throw invalid({
            id: `is required: send the id of a snapshot (0 to 9, or custom), or a picture as "${SNAPSHOT_FIELD}"`,
          })
        }
        await selectSnapshot(c.em, file.id, id.trim())
      }
      return answer(c, (await fileQueries.fileById(c.reader, file.id)) ?? file, 200)
    },
    { permission: `${OWNER}; profile file.edit` },
  )
}
