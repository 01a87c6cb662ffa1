/**
 * Logo insertion (`POST /file/<slug>/studio/insertlogo`): a new video made from this one with an image of the
 * library laid over every frame, in a box given in percentages of the frame. Offered for a video that finished
 * encoding, to profiles with `file.create` (the new file is an upload of theirs).
 */
import { useSignal } from '@preact/signals'
import { type Session, childText, getPage, postXml } from './api.js'
import { type T, useAction } from './file-action.js'
import { type FileDetails, fileHref, filePath } from './file-data.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import type { Language } from './messages/index.js'

interface Picture {
  slug: string
  name: string
}

/** The images of the library to choose a logo from, by name (one page: logos are few). */
async function picturesOf(session: Session): Promise<Picture[]> {
  const { doc } = await getPage(session, '/search/files?type=image&sort=name', 0, 200)
  return Array.from(doc.getElementsByTagName('file')).map((element) => ({
    slug: childText(element, 'slug'),
    name: childText(element, 'name'),
  }))
}

/** Where the logo goes: the box's left, top, width and height, percentages of the frame. */
const BOX = ['left', 'top', 'width', 'height'] as const
type Box = Record<(typeof BOX)[number], string>

/** A corner at a tenth of the frame's width: where a broadcaster's logo sits. */
const TOP_RIGHT: Box = { left: '85', top: '5', width: '10', height: '10' }

export function FileLogo(props: { session: Session; language: Language; t: T; file: FileDetails }) {
  const { session, language, t, file } = props
  const { current, reload } = useLoad(() => picturesOf(session))
  const logo = useSignal('')
  const box = useSignal<Box>(TOP_RIGHT)
  const name = useSignal(t('file.logo.name.default', { name: file.name }))
  const made = useSignal<{ slug: string; name: string } | null>(null)
  const action = useAction(t)

  let body
  if (current.state === 'loading') body = <Loading language={language} />
  else if (current.state === 'error')
    body = <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  else if (!current.value.length) body = <p>{t('file.logo.no_pictures')}</p>
  else {
    const pictures = current.value
    const submit = (event: Event) => {
      event.preventDefault()
      const chosen = logo.value || pictures[0]!.slug
      const form = {
        logo: chosen,
        logo_left: box.value.left,
        logo_top: box.value.top,
        logo_width: box.value.width,
        logo_height: box.value.height,
        name: name.value.trim(),
      }
      void action.run(async () => {
        const doc = await postXml(session, filePath(file.slug, '/studio/insertlogo'), form)
        made.value = { slug: childText(doc, 'slug'), name: childText(doc, 'name') }
      }, t('file.logo.made'))
    }
    body = (
      <form onSubmit={submit}>
        <label for="file-logo-picture">{t('file.logo.picture')}</label>
        <select
          id="file-logo-picture"
          value={logo.value}
          onChange={(e) => (logo.value = (e.target as HTMLSelectElement).value)}
        >
          {pictures.map((picture) => (
            <option key={picture.slug} value={picture.slug}>
              {picture.name}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>{t('file.logo.box')}</legend>
          <p class="hint">{t('file.logo.box.hint')}</p>
          <div class="filters">
            {BOX.map((side) => (
              <div key={side}>
                <label for={`file-logo-${side}`}>{t(`file.logo.${side}`)}</label>
                <input
                  type="number"
                  id={`file-logo-${side}`}
                  min={side === 'width' || side === 'height' ? 0.1 : 0}
                  max={100}
                  step="any"
                  required
                  value={box.value[side]}
                  onInput={(e) => (box.value = { ...box.value, [side]: (e.target as HTMLInputElement).value })}
                />
              </div>
            ))}
          </div>
        </fieldset>
        <label for="file-logo-name">{t('file.logo.name')}</label>
        <input
          type="text"
          id="file-logo-name"
          required
          maxLength={255}
          value={name.value}
          onInput={(e) => (name.value = (e.target as HTMLInputElement).value)}
        />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('file.logo.submit')}
          </button>
        </div>
      </form>
    )
  }
  return (
    <section class="card" aria-labelledby="file-logo-heading">
      <h2 id="file-logo-heading">{t('file.logo')}</h2>
      <p class="hint">{t('file.logo.intro')}</p>
      {body}
      {action.outcome}
      {made.value ? (
        <p>
          <a href={fileHref(session.base, made.value.slug)}>{t('file.logo.open', { name: made.value.name })}</a>
        </p>
      ) : null}
    </section>
  )
}
