import { type Router, invalid, reply, transaction } from '../../src/kernel/index.js'
import { fileQueries, fileStatusXml, ownFile, requireFileFlag, setEncodingState } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'

/** Statuses of a file whose encoding is still to come or under way. */
const UNDER_WAY = ['pending', 'waiting', 'running']

/**
 * `POST /file/<slug>/encoding` (an extension of the contract, for the console's "Encode again"): encodes the file
 * anew, a failed encoding retried (after a platform got more space, say) or a finished one made again. 202 with the
 * file's status, `waiting`; the job replaces the renditions when it succeeds. A file already waiting or encoding is a
 * 412: its encoding is coming.
 */
export function encodeAgainRoutes(r: Router, deps: EncodingDeps): void {
  r.post(
    '/file/:file/encoding',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.edit')
      if (UNDER_WAY.includes(file.encodingStatus)) {
        throw invalid({
          file: `is being encoded already (${file.encodingStatus}): wait until it is finished or failed`,
        })
      }
      await transaction(c.em, async (tx) => {
        await setEncodingState(tx, file.id, { status: 'waiting' })
        await deps.queueEncoding(tx, file)
      })
      return reply.xml(202, fileStatusXml(c.links, (await fileQueries.fileById(c.reader, file.id))!))
    },
    { permission: 'the owner only (files are private); anyone else gets 404; profile file.edit' },
  )
}
