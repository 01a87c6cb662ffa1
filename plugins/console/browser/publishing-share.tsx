import { useSignal } from '@preact/signals'
import { type Language, type MessageKey, message } from './messages/index.js'
import { CopyField } from './copy.js'
import { type Resource, shareLink } from './publishing-data.js'

/** `90`, `1:30` or `1:02:03`: seconds; anything else, null. */
function secondsOf(text: string): number | null {
  const trimmed = text.trim()
  if (!trimmed) return 0
  if (!/^\d+(:[0-5]?\d){0,2}$/.test(trimmed)) return null
  return trimmed.split(':').reduce((total, part) => total * 60 + Number(part), 0)
}

/**
 * The share link of a resource: its player page (`/player/<slug>`), starting at a chosen time (`?t=<seconds>`, which
 * the player honours), copied in one click. Without an online web or widget channel there is no player to share.
 */
export function ShareCard(props: { language: Language; resource: Resource }) {
  const { language, resource } = props
  const t = (key: MessageKey) => message(language, key)
  const start = useSignal('')
  const seconds = secondsOf(start.value)
  return (
    <section class="card" aria-labelledby="share-heading">
      <h2 id="share-heading">{t('publishing.share')}</h2>
      {resource.player ? (
        <>
          <label for="share-start">{t('publishing.share.start')}</label>
          <input
            type="text"
            id="share-start"
            inputMode="numeric"
            value={start.value}
            aria-describedby="share-start-hint"
            aria-invalid={seconds === null}
            onInput={(event) => (start.value = (event.target as HTMLInputElement).value)}
          />
          <p class={seconds === null ? 'problem' : 'hint'} id="share-start-hint">
            {t(seconds === null ? 'publishing.share.start.wrong' : 'publishing.share.start.hint')}
          </p>
          {resource.visibility === 'visible' ? null : <p class="hint">{t('publishing.share.not_visible')}</p>}
          <CopyField
            language={language}
            copied={t('publishing.copied')}
            id="share-link"
            label={t('publishing.share.link')}
            button={t('publishing.share.copy')}
            value={shareLink(resource.player, seconds ?? 0)}
          />
        </>
      ) : (
        <p>{t('publishing.share.none')}</p>
      )}
    </section>
  )
}
