import { useSignal } from '@preact/signals'
import { type Session, deleteAt, putXml, reasonOf } from './api.js'
import { Confirm } from './confirm.js'
import { FolderPicker } from './folder-picker.js'
import { PublishPanel } from './library-publish.js'
import type { FileRow, FolderLink } from './library-data.js'
import { type Language, type MessageKey, message } from './messages/index.js'

type Step =
  | { step: 'idle' }
  | { step: 'moving' }
  | { step: 'publishing' }
  | { step: 'confirm-delete' }
  | { step: 'working'; done: number; total: number; verb: 'move' | 'delete' }
  | { step: 'finished'; text: string; failures: string[] }

/**
 * What to do with the selected files: move them (profile `file.edit`), publish them (a `file.publish_<type>` flag) or
 * delete them (`file.delete`), one API request
 * per file, with progress; a file the API refuses is reported by name with the API's reason, the others go on.
 * Controls for a flag the user lacks are not offered.
 */
export function BulkActions(props: { session: Session; language: Language; selected: FileRow[]; onDone: () => void }) {
  const { session, language, selected, onDone } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const state = useSignal<Step>({ step: 'idle' })
  const canMove = session.flags.has('file.edit')
  const canDelete = session.flags.has('file.delete')
  // Publishing needs a file.publish_<type> flag (and resource.create on the stream, which only the API knows).
  const canPublish = [...session.flags].some((flag) => flag.startsWith('file.publish_'))

  async function run(verb: 'move' | 'delete', act: (file: FileRow) => Promise<unknown>) {
    const files = selected
    const failures: string[] = []
    for (const [index, file] of files.entries()) {
      state.value = { step: 'working', done: index, total: files.length, verb }
      try {
        await act(file)
      } catch (error) {
        failures.push(`${file.name}: ${reasonOf(error)}`)
      }
    }
    const done = files.length - failures.length
    state.value = {
      step: 'finished',
      text: t(verb === 'move' ? 'library.moved' : 'library.deleted', { count: done }),
      failures,
    }
    onDone()
  }

  const move = (folder: FolderLink | null) =>
    run('move', (file) => putXml(session, `/file/${encodeURIComponent(file.slug)}`, { folder: folder?.slug ?? '/' }))
  const remove = () => run('delete', (file) => deleteAt(session, `/file/${encodeURIComponent(file.slug)}`))

  const current = state.value
  const count = selected.length
  return (
    <div>
      {current.step === 'finished' ? (
        <div role="status">
          <p class="notice">{current.text}</p>
          {current.failures.length ? (
            <div role="alert">
              <p class="problem">{t('library.failures', { count: current.failures.length })}</p>
              <ul>
                {current.failures.map((failure) => (
                  <li key={failure}>{failure}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      ) : null}
      {current.step === 'working' ? (
        <p role="status">
          {t(current.verb === 'move' ? 'library.moving' : 'library.deleting', {
            done: current.done + 1,
            total: current.total,
          })}
        </p>
      ) : null}
      {count && (canMove || canDelete || canPublish) && current.step !== 'working' ? (
        <div class="actions" role="group" aria-label={t('library.selection', { count })}>
          <span>{t('library.selection', { count })}</span>
          {canMove ? (
            <button type="button" onClick={() => (state.value = { step: 'moving' })}>
              {t('library.move')}
            </button>
          ) : null}
          {canPublish ? (
            <button type="button" onClick={() => (state.value = { step: 'publishing' })}>
              {t('library.publish')}
            </button>
          ) : null}
          {canDelete ? (
            <button type="button" class="danger" onClick={() => (state.value = { step: 'confirm-delete' })}>
              {t('library.delete')}
            </button>
          ) : null}
        </div>
      ) : null}
      {current.step === 'moving' && count ? (
        <FolderPicker
          session={session}
          language={language}
          count={count}
          onPick={move}
          onCancel={() => (state.value = { step: 'idle' })}
        />
      ) : null}
      {current.step === 'publishing' && count ? (
        <PublishPanel
          session={session}
          language={language}
          files={selected}
          onClose={() => (state.value = { step: 'idle' })}
        />
      ) : null}
      {current.step === 'confirm-delete' && count ? (
        <Confirm
          dialog
          question={t('library.delete.confirm', { count })}
          yes={t('library.delete.yes', { count })}
          no={t('library.cancel')}
          danger
          onYes={remove}
          onNo={() => (state.value = { step: 'idle' })}
        />
      ) : null}
    </div>
  )
}
