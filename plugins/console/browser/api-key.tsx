import { useSignal } from '@preact/signals'
import { type Session, childText, postXml, reasonOf } from './api.js'
import { Confirm } from './confirm.js'
import { CopyField } from './copy.js'
import { type Language, type MessageKey, message } from './messages/index.js'

type Step =
  | { step: 'idle' }
  | { step: 'confirm' }
  | { step: 'working' }
  | { step: 'shown'; key: string }
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
      state.value = { step: 'shown', key: childText(doc, 'key') }
    } catch (error) {
      state.value = { step: 'error', reason: reasonOf(error) }
    }
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
        <Confirm
          question={t('api_key.confirm')}
          yes={t('api_key.confirm.yes')}
          no={t('api_key.confirm.no')}
          busy={current.step === 'working'}
          onYes={make}
          onNo={() => (state.value = { step: 'idle' })}
        />
      ) : null}
      {current.step === 'shown' ? (
        <CopyField
          language={language}
          id="api-key-value"
          label={t('api_key.shown')}
          value={current.key}
          hint={t('api_key.shown.hint')}
          button={t('api_key.copy')}
          copied={t('api_key.copied')}
        />
      ) : null}
    </section>
  )
}
