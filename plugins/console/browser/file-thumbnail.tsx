/**
 * The file's thumbnail: chosen among the snapshots its encoding made (`POST /file/<slug>/snapshots` with `id`), or a
 * picture uploaded in their place (`file_upload`, stored as snapshot `custom`). Profile `file.edit`.
 */
import { useSignal } from '@preact/signals'
import { type Session, postXml } from './api.js'
import { type T, chosenFile, emptied, multipart, useAction } from './file-action.js'
import { type FileDetails, filePath } from './file-data.js'

export function FileThumbnail(props: { session: Session; t: T; file: FileDetails; onChanged: () => void }) {
  const { session, t, file, onChanged } = props
  const canEdit = session.flags.has('file.edit')
  const selected = file.snapshots.find((snapshot) => snapshot.selected)
  const choice = useSignal(selected ? selected.id : '')
  const action = useAction(t)
  const label = (id: string) => (id === 'custom' ? t('file.thumbnail.custom') : t('file.thumbnail.snapshot', { id }))

  function choose(event: Event) {
    event.preventDefault()
    const id = choice.value
    void action.run(
      () => postXml(session, filePath(file.slug, '/snapshots'), { id }),
      t('file.thumbnail.chosen'),
      onChanged,
    )
  }
  function upload(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const picture = chosenFile(form, 'file_upload')
    if (!picture) return
    void action.run(
      () => postXml(session, filePath(file.slug, '/snapshots'), multipart({ file_upload: picture })),
      t('file.thumbnail.uploaded'),
      emptied(form, onChanged),
    )
  }

  return (
    <section class="card" aria-labelledby="file-thumbnail-heading">
      <h2 id="file-thumbnail-heading">{t('file.thumbnail')}</h2>
      {file.thumbnail ? (
        <img class="thumb" src={file.thumbnail} alt={t('file.thumbnail.current', { name: file.name })} />
      ) : (
        <p>{t('file.thumbnail.none')}</p>
      )}
      {canEdit && file.snapshots.length ? (
        <form onSubmit={choose}>
          <fieldset>
            <legend>{t('file.thumbnail.choose')}</legend>
            <ul class="plain snapshots">
              {file.snapshots.map((snapshot) => (
                <li key={snapshot.id}>
                  <label>
                    <input
                      type="radio"
                      name="snapshot"
                      value={snapshot.id}
                      checked={choice.value === snapshot.id}
                      onChange={() => (choice.value = snapshot.id)}
                    />
                    <img class="thumb" src={snapshot.src} alt="" />
                    {label(snapshot.id)}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <div class="actions">
            <button type="submit" disabled={action.busy || !choice.value}>
              {t('file.thumbnail.use')}
            </button>
          </div>
        </form>
      ) : null}
      {canEdit ? (
        <form onSubmit={upload}>
          <label for="file-thumbnail-upload">{t('file.thumbnail.upload')}</label>
          <input type="file" id="file-thumbnail-upload" name="file_upload" accept="image/*" required />
          <p class="hint">{t('file.thumbnail.upload.hint')}</p>
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              {t('file.thumbnail.upload.submit')}
            </button>
          </div>
        </form>
      ) : null}
      {action.outcome}
    </section>
  )
}
