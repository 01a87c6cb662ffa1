/** A file's encoding seen live on its page, from its status route, while it is still to come or under way. */
import { useSignal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import { type Session, childText, getXml } from './api.js'
import { filePath } from './file-data.js'

/** Statuses after which nothing changes by itself. */
const SETTLED = ['finished', 'failed']

/** How often the page asks (the library's upload box asks as often). */
const EVERY_MS = 2000

export interface EncodingState {
  status: string
  progress: number
}

export const isSettled = (status: string): boolean => SETTLED.includes(status)

/**
 * The encoding state of the file: `start` as loaded, then what `GET /file/<slug>/status` says every two seconds until
 * it settles, when `onSettled` reloads the page's data (the renditions, the snapshots and the thumbnail are new).
 */
export function useEncodingWatch(
  session: Session,
  slug: string,
  start: EncodingState | null,
  onSettled: () => void,
): EncodingState | null {
  const live = useSignal<EncodingState | null>(null)
  const watching = start !== null && !isSettled(start.status)
  useEffect(() => {
    live.value = null
    if (!watching) return undefined
    const timer = setInterval(() => {
      getXml(session, filePath(slug, '/status')).then(
        (doc) => {
          const now = {
            status: childText(doc, 'encoding_status'),
            progress: Number(childText(doc, 'encoding_progress')),
          }
          live.value = now
          if (isSettled(now.status)) {
            clearInterval(timer)
            onSettled()
          }
        },
        // A missed poll is retried by the next one.
        () => undefined,
      )
    }, EVERY_MS)
    return () => clearInterval(timer)
  }, [slug, watching])
  return live.value ?? start
}
