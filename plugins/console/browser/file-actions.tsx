/**
 * What else to do with the file: download its original, encode it again (profile `file.edit`, once its encoding
 * finished or failed) and delete it, after a confirmation, going back to its folder (profile `file.delete`).
 */
import { useSignal } from '@preact/signals'
import { type Session, deleteAt, postXml } from './api.js'
import { Confirm } from './confirm.js'
import { type T, useAction } from './file-action.js'
import { type FileDetails, filePath } from './file-data.js'
import { isSettled } from './file-encoding.js'
import { libraryHref } from './library-query.js'

export function FileActions(props: {
  session: Session
  t: T
  file: FileDetails
  status: string
  onChanged: () => void
}) {
  const { session, t, file, status, onChanged } = props
  const confirming = useSignal(false)
  const action = useAction(t)
  const remove = () =>
    action.run(
      () => deleteAt(session, filePath(file.slug)),
      t('file.deleted', { name: file.name }),
      () => location.assign(libraryHref(session.base, { folder: file.folder })),
    )
  return (
    <section class="card" aria-labelledby="file-actions-heading">
      <h2 id="file-actions-heading">{t('file.actions')}</h2>
      <div class="actions">
        {file.source ? (
          <a class="button" href={file.source} download={file.name}>
            {t('file.download')}
          </a>
        ) : null}
        {session.flags.has('file.edit') && isSettled(status) ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              action.run(
                () => postXml(session, filePath(file.slug, '/encoding')),
                t('file.encode.again.done'),
                onChanged,
              )
            }
          >
            {t('file.encode.again')}
          </button>
        ) : null}
        {session.flags.has('file.delete') && !confirming.value ? (
          <button type="button" class="danger" onClick={() => (confirming.value = true)}>
            {t('file.delete')}
          </button>
        ) : null}
      </div>
      {confirming.value ? (
        <Confirm
          question={t('file.delete.question', { name: file.name })}
          yes={t('file.delete.yes')}
          no={t('file.cancel')}
          danger
          busy={action.busy}
          onYes={remove}
          onNo={() => (confirming.value = false)}
        />
      ) : null}
      {action.outcome}
    </section>
  )
}
