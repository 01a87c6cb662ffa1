/**
 * The file played or shown from what its encoding made: the video or sound flavors (largest first: the browser plays
 * the first it can), its subtitles as tracks, or the picture. Their URLs carry a media token (decision 0260).
 */
import type { T } from './file-action.js'
import { type FileDetails, withToken } from './file-data.js'
import { languageName } from './file-subtitles.js'

export function FilePreview(props: { t: T; pageLanguage: string; file: FileDetails }) {
  const { t, pageLanguage, file } = props
  const video = file.flavors.filter((flavor) => flavor.type.startsWith('video/'))
  const audio = file.flavors.filter((flavor) => flavor.type.startsWith('audio/'))
  const tracks = file.subtitles.map((subtitle) => (
    <track
      key={subtitle.id}
      kind="subtitles"
      srcLang={subtitle.language}
      label={languageName(subtitle.language, pageLanguage)}
      src={withToken(subtitle.href, file.token)}
    />
  ))
  let shown
  if (video.length) {
    shown = (
      <video
        class="preview"
        controls
        preload="metadata"
        poster={file.thumbnail || undefined}
        aria-label={t('file.preview.video', { name: file.name })}
      >
        {video.map((flavor) => (
          <source key={flavor.name} src={flavor.src} type={flavor.type} />
        ))}
        {tracks}
      </video>
    )
  } else if (audio.length) {
    shown = (
      <audio class="preview" controls preload="metadata" aria-label={t('file.preview.audio', { name: file.name })}>
        {audio.map((flavor) => (
          <source key={flavor.name} src={flavor.src} type={flavor.type} />
        ))}
      </audio>
    )
  } else if (file.type === 'image' && file.thumbnail) {
    shown = <img class="preview" src={file.thumbnail} alt={t('file.preview.image', { name: file.name })} />
  } else {
    shown = (
      <p>
        {['video', 'audio', 'image'].includes(file.type) && file.status !== 'failed'
          ? t('file.preview.later')
          : t('file.preview.none')}
      </p>
    )
  }
  return (
    <section class="card" aria-labelledby="file-preview-heading">
      <h2 id="file-preview-heading">{t('file.preview')}</h2>
      {shown}
    </section>
  )
}
