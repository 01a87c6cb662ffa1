/** A file's facts (name, type, size, folder, encoding, duration, frame) and its rename form. */
import { useSignal } from '@preact/signals'
import { type Session, putXml } from './api.js'
import { type T, useAction } from './file-action.js'
import { type FileDetails, filePath } from './file-data.js'
import type { EncodingState } from './file-encoding.js'
import { bytes, encodingLabel } from './format.js'
import { FILE_TYPES, libraryHref } from './library-query.js'
import type { Language } from './messages/index.js'

const isType = (value: string): value is (typeof FILE_TYPES)[number] =>
  (FILE_TYPES as readonly string[]).includes(value)

/** `1:02:03`, `4:05`: a duration as players show it. */
export function clock(seconds: number): string {
  const whole = Math.round(seconds)
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60]
  const two = (n: number) => String(n).padStart(2, '0')
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`
}

export function FileFacts(props: {
  session: Session
  language: Language
  t: T
  file: FileDetails
  encoding: EncodingState
  onChanged: () => void
}) {
  const { session, language, t, file, encoding, onChanged } = props
  // The largest flavor says the frame and the length (the API lists them largest first).
  const largest = file.flavors[0]
  const underWay = !['finished', 'failed'].includes(encoding.status)
  return (
    <section class="card" aria-labelledby="file-facts-heading">
      <h2 id="file-facts-heading">{file.name}</h2>
      <dl class="facts">
        <dt>{t('file.type')}</dt>
        <dd>
          {isType(file.type) ? t(`type.${file.type}`) : file.type}
          {file.mimeType ? <span class="hint"> ({file.mimeType})</span> : null}
        </dd>
        <dt>{t('file.size')}</dt>
        <dd>{bytes(file.size, language)}</dd>
        <dt>{t('file.folder')}</dt>
        <dd>
          <a href={libraryHref(session.base, { folder: file.folder })}>
            {file.folder === null ? t('file.folder.root') : t('file.folder.open')}
          </a>
        </dd>
        <dt>{t('file.encoding')}</dt>
        <dd>
          <span id="file-encoding">{encodingLabel(language, encoding.status, encoding.progress)}</span>
          {underWay ? <progress max={100} value={encoding.progress} aria-labelledby="file-encoding" /> : null}
          {encoding.status === 'failed' && file.error ? <p class="problem">{file.error}</p> : null}
        </dd>
        {largest && largest.duration ? (
          <>
            <dt>{t('file.duration')}</dt>
            <dd>{clock(largest.duration)}</dd>
          </>
        ) : null}
        {largest && largest.width ? (
          <>
            <dt>{t('file.frame')}</dt>
            <dd>{t('file.frame.size', { width: largest.width, height: largest.height })}</dd>
          </>
        ) : null}
      </dl>
      {session.flags.has('file.edit') ? <RenameForm session={session} t={t} file={file} onChanged={onChanged} /> : null}
    </section>
  )
}

function RenameForm(props: { session: Session; t: T; file: FileDetails; onChanged: () => void }) {
  const { session, t, file, onChanged } = props
  const name = useSignal(file.name)
  const action = useAction(t)
  function submit(event: Event) {
    event.preventDefault()
    const chosen = name.value.trim()
    void action.run(
      () => putXml(session, filePath(file.slug), { name: chosen }),
      t('file.renamed', { name: chosen }),
      onChanged,
    )
  }
  return (
    <form onSubmit={submit}>
      <label for="file-name">{t('file.rename')}</label>
      <input
        type="text"
        id="file-name"
        required
        maxLength={255}
        value={name.value}
        onInput={(event) => (name.value = (event.target as HTMLInputElement).value)}
      />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {t('file.rename.submit')}
        </button>
      </div>
      {action.outcome}
    </form>
  )
}
