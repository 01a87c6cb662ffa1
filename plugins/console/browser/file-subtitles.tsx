/**
 * The file's subtitles: each track by language (the WebVTT to download, a delete), and adding an SRT or WebVTT file
 * in a language (`POST /file/<slug>/subtitles`, multipart). Changes need the profile's `file.edit`. The API keeps no
 * label of its own for a track: players name it by its language.
 */
import { useSignal } from '@preact/signals'
import { type Session, deleteAt, postXml } from './api.js'
import { Confirm } from './confirm.js'
import { type T, chosenFile, emptied, multipart, useAction } from './file-action.js'
import { type FileDetails, type Subtitle, filePath, withToken } from './file-data.js'

/** What the page needs of `Intl.DisplayNames`: newer than the ES2017 types the console compiles against. */
type DisplayNames = new (locales: string[], options: { type: 'language' }) => { of(code: string): string | undefined }

/** A language's name in the page's language (`fr` → `French (fr)`); its code alone where the browser cannot say. */
export function languageName(code: string, pageLanguage: string): string {
  const Names = (Intl as unknown as { DisplayNames?: DisplayNames }).DisplayNames
  try {
    const name = Names ? new Names([pageLanguage], { type: 'language' }).of(code) : undefined
    return name && name !== code ? `${name} (${code})` : code
  } catch {
    // A code the browser refuses (not a language tag): shown as it is.
    return code
  }
}

export function FileSubtitles(props: {
  session: Session
  t: T
  pageLanguage: string
  file: FileDetails
  onChanged: () => void
}) {
  const { session, t, pageLanguage, file, onChanged } = props
  const canEdit = session.flags.has('file.edit')
  const action = useAction(t)
  const confirming = useSignal<string | null>(null)

  function remove(subtitle: Subtitle) {
    confirming.value = null
    void action.run(
      () => deleteAt(session, filePath(file.slug, `/subtitles/${encodeURIComponent(subtitle.id)}`)),
      t('file.subtitles.deleted', { language: subtitle.language }),
      onChanged,
    )
  }
  function add(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const track = chosenFile(form, 'subtitle')
    const language = (form.elements.namedItem('language') as HTMLInputElement).value.trim().toLowerCase()
    if (!track) return
    void action.run(
      () => postXml(session, filePath(file.slug, '/subtitles'), multipart({ language, subtitle: track })),
      t('file.subtitles.added'),
      emptied(form, onChanged),
    )
  }

  return (
    <section class="card" aria-labelledby="file-subtitles-heading">
      <h2 id="file-subtitles-heading">{t('file.subtitles')}</h2>
      {file.subtitles.length ? (
        <ul class="subtitles">
          {file.subtitles.map((subtitle) => {
            const name = languageName(subtitle.language, pageLanguage)
            return (
              <li key={subtitle.id}>
                <a href={withToken(subtitle.href, file.token)} download={`${file.slug}.${subtitle.language}.vtt`}>
                  {t('file.subtitles.download', { language: name })}
                </a>
                {canEdit && confirming.value !== subtitle.id ? (
                  <button type="button" class="quiet" onClick={() => (confirming.value = subtitle.id)}>
                    {t('file.subtitles.delete', { language: name })}
                  </button>
                ) : null}
                {confirming.value === subtitle.id ? (
                  <Confirm
                    question={t('file.subtitles.confirm', { language: name })}
                    yes={t('file.subtitles.delete.yes', { language: name })}
                    no={t('file.cancel')}
                    danger
                    busy={action.busy}
                    onYes={() => remove(subtitle)}
                    onNo={() => (confirming.value = null)}
                  />
                ) : null}
              </li>
            )
          })}
        </ul>
      ) : (
        <p>{t('file.subtitles.none')}</p>
      )}
      {canEdit ? (
        <form onSubmit={add}>
          <label for="file-subtitle-language">{t('file.subtitles.language')}</label>
          <input
            type="text"
            id="file-subtitle-language"
            name="language"
            required
            pattern="[a-zA-Z]{2}"
            maxLength={2}
            autoComplete="off"
            aria-describedby="file-subtitle-language-hint"
          />
          <p class="hint" id="file-subtitle-language-hint">
            {t('file.subtitles.language.hint')}
          </p>
          <label for="file-subtitle-file">{t('file.subtitles.file')}</label>
          <input type="file" id="file-subtitle-file" name="subtitle" accept=".srt,.vtt,text/vtt" required />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              {t('file.subtitles.add')}
            </button>
          </div>
        </form>
      ) : null}
      {action.outcome}
    </section>
  )
}
