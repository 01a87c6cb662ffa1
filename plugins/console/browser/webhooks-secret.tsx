import { CopyField } from './copy.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/**
 * A webhook's signing secret, as the API answered it to its creation or rotation: shown this once (the API never
 * shows it again), with a copy button, until the person says they have it.
 */
export function SecretShown(props: { language: Language; id: string; secret: string; onDone: () => void }) {
  const { language, id, secret, onDone } = props
  const t = (key: MessageKey) => message(language, key)
  return (
    <div class="card" role="group" aria-label={t('webhooks.secret')}>
      <CopyField
        language={language}
        id={`webhook-${id}-secret`}
        label={t('webhooks.secret')}
        value={secret}
        hint={t('webhooks.secret.hint')}
        button={t('webhooks.secret.copy')}
        copied={t('webhooks.secret.copied')}
      >
        <button type="button" class="quiet" onClick={onDone}>
          {t('webhooks.secret.done')}
        </button>
      </CopyField>
    </div>
  )
}
