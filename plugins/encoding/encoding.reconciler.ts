import { type EntityManager, type Reconciler, transaction } from '../../src/kernel/index.js'
import { encodingCode, fileQueries, setEncodingState } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'

/** Files looked at per reconciliation (the oldest unsettled first). */
const BATCH = 10_000

/**
 * Files whose encoding is not settled (pending, waiting, running) and that no live job works
 * on: a file with its bytes gets a new encoding job; a logo insertion whose job is gone (its
 * bytes were never made) fails, saying to insert the logo again. With the outbox no such file
 * arises; this mends what older versions, lost Redis queues or hand edits left.
 */
export function encodingReconciler(deps: EncodingDeps): Reconciler {
  return async ({ liveKeys }) => {
    const files = await fileQueries.unsettled(deps.reader, BATCH)
    if (!files.length) return 0
    const live = await liveKeys(files.flatMap((file) => [`encode:${file.id}`, `insertlogo:${file.id}`]))
    let queued = 0
    for (const file of files) {
      if (live.has(`encode:${file.id}`) || live.has(`insertlogo:${file.id}`)) continue
      queued += await transaction(deps.em(), async (tx) => {
        // Read again after the keys: a job that ended meanwhile settled its file first.
        if (!(await stillUnsettled(tx, file.id))) return 0
        if (file.size === 0) {
          await setEncodingState(tx, file.id, {
            status: 'failed',
            error: 'the logo insertion was lost before it ran: insert the logo again',
          })
          return 0
        }
        await setEncodingState(tx, file.id, { status: 'waiting' })
        await deps.queueEncoding(tx, file)
        return 1
      })
    }
    return queued
  }
}

async function stillUnsettled(tx: EntityManager, fileId: number): Promise<boolean> {
  const rows = await tx.execute<{ encoding_status: number | string }[]>(
    'select encoding_status from files where id = ?',
    [fileId],
  )
  const status = rows[0] ? Number(rows[0].encoding_status) : -1
  return [encodingCode('pending'), encodingCode('waiting'), encodingCode('running')].includes(status)
}
