import { useSignal } from '@preact/signals'
import { type Session, childText, postXml } from './api.js'
import { type Language, type MessageKey, message } from './messages/index.js'

type Step =
  | { step: 'idle' }
  | { step: 'confirm' }
  | { step: 'working' }
  | { step: 'shown'; key: string; copied: boolean }
  | { step: 'error'; reason: string }

/**
 * The user's own API key: a new one made through the API (`POST /user/<me>/api_key`), after a confirmation since the
 * old one stops working at once, then shown this once with a copy button.
 */
export function ApiKeyCard(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey) => message(language, key)
  const state = useSignal<Step>({ step: 'idle' })

  async function make() {
    state.value = { step: 'working' }
    try {
      const doc = await postXml(session, `/user/${encodeURIComponent(session.username)}/api_key`)
      state.value = { step: 'shown', key: childText(doc, 'key'), copied: false }
    } catch (error) {
      state.value = { step: 'error', reason: error instanceof Error ? error.message : String(error) }
    }
  }

  async function copy(key: string) {
    await navigator.clipboard.writeText(key)
    state.value = { step: 'shown', key, copied: true }
  }

  const current = state.value
  return (
    <section class="card" aria-labelledby="api-key-heading">
      <h2 id="api-key-heading">{t('api_key.title')}</h2>
      <p>{t('api_key.intro')}</p>
      {current.step === 'idle' || current.step === 'error' ? (
        <div>
          {current.step === 'error' ? (
            <p class="problem" role="alert">
              {message(language, 'state.error', { reason: current.reason })}
            </p>
          ) : null}
          <button type="button" onClick={() => (state.value = { step: 'confirm' })}>
            {t('api_key.make')}
          </button>
        </div>
      ) : null}
      {current.step === 'confirm' || current.step === 'working' ? (
        <div role="group" aria-labelledby="api-key-confirm">
          <p id="api-key-confirm">{t('api_key.confirm')}</p>
          <div class="actions">
            <button type="button" onClick={make} disabled={current.step === 'working'}>
              {t('api_key.confirm.yes')}
            </button>
            <button type="button" class="quiet" onClick={() => (state.value = { step: 'idle' })}>
              {t('api_key.confirm.no')}
            </button>
          </div>
        </div>
      ) : null}
      {current.step === 'shown' ? (
        <div>
          <label for="api-key-value">{t('api_key.shown')}</label>
          <input type="text" id="api-key-value" readOnly value={current.key} spellcheck={false} autocomplete="off" />
          <p class="hint">{t('api_key.shown.hint')}</p>
          <div class="actions">
            <button type="button" onClick={() => copy(current.key)}>
              {t('api_key.copy')}
            </button>
          </div>
          <p role="status">{current.copied ? t('api_key.copied') : ''}</p>
        </div>
      ) : null}
    </section>
  )
}
