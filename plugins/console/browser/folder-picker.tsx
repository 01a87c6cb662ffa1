import { reasonOf } from './api.js'
import { useSignal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import type { Session } from './api.js'
import { type FolderLink, subfoldersOf } from './library-data.js'
import { type Language, type MessageKey, message } from './messages/index.js'

type Load = { state: 'loading' } | { state: 'error'; reason: string } | { state: 'ready'; folders: FolderLink[] }

/**
 * Where to move files: a walk through the user's folders from the root (`Open`, `Up`), then `Move here`. Each step
 * asks the API for one folder's subfolders, so a large tree costs one small request per step.
 */
export function FolderPicker(props: {
  session: Session
  language: Language
  count: number
  onPick: (folder: FolderLink | null) => void
  onCancel: () => void
}) {
  const { session, language, count, onPick, onCancel } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  // The folders walked into, from the root; the last is where `Move here` moves to.
  const trail = useSignal<FolderLink[]>([])
  const load = useSignal<Load>({ state: 'loading' })
  const here = trail.value[trail.value.length - 1] ?? null

  useEffect(() => {
    load.value = { state: 'loading' }
    subfoldersOf(session, here?.slug ?? null).then(
      (folders) => (load.value = { state: 'ready', folders }),
      (error: unknown) => (load.value = { state: 'error', reason: reasonOf(error) }),
    )
  }, [here?.slug])

  const current = load.value
  return (
    <div class="card" role="group" aria-labelledby="picker-heading">
      <h3 id="picker-heading">{t('library.move.title', { count })}</h3>
      <p>{t('library.move.here', { name: here ? here.name : t('library.root') })}</p>
      <div class="actions">
        <button type="button" onClick={() => onPick(here)}>
          {t('library.move.confirm')}
        </button>
        {here ? (
          <button type="button" class="quiet" onClick={() => (trail.value = trail.value.slice(0, -1))}>
            {t('library.move.up')}
          </button>
        ) : null}
        <button type="button" class="quiet" onClick={onCancel}>
          {t('library.cancel')}
        </button>
      </div>
      {current.state === 'loading' ? <p role="status">{t('state.loading')}</p> : null}
      {current.state === 'error' ? (
        <p class="problem" role="alert">
          {t('state.error', { reason: current.reason })}
        </p>
      ) : null}
      {current.state === 'ready' && current.folders.length ? (
        <ul class="plain">
          {current.folders.map((folder) => (
            <li key={folder.slug}>
              <button type="button" class="quiet" onClick={() => (trail.value = [...trail.value, folder])}>
                {t('library.move.open', { name: folder.name })}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
