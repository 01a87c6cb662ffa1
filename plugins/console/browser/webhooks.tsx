import { unlessRefused } from './api.js'
import { useSignal } from '@preact/signals'
import type { Session } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { MANAGES_PLATFORM } from './settings-platform.js'
import { WebhookCard } from './webhooks-card.js'
import { loadWebhooks } from './webhooks-data.js'
import { WebhookForm } from './webhooks-form.js'

/**
 * The webhooks of the user's platform (docs/webhooks.md), for its administrators (`platform.edit`): each webhook's
 * card, then the form of a new one. A secret the API answers (creation, rotation) is shown once, in its card. Others
 * opening the address are told the section is not for them; the API refuses them anyway (403).
 */
export function Webhooks(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const offered = session.flags.has(MANAGES_PLATFORM)
  const { current, reload } = useLoad(() => unlessRefused(offered ? loadWebhooks(session) : Promise.resolve(null)))
  const fresh = useSignal<{ id: string; secret: string } | null>(null)
  const notice = useSignal('')

  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  if (!current.value) {
    return (
      <p class="notice" role="status">
        {t('webhooks.not_for_you')}
      </p>
    )
  }
  const { platform, path, hooks, types } = current.value

  function changed(text: string) {
    notice.value = text
    reload()
  }

  return (
    <div>
      <p>{t('webhooks.intro', { platform })}</p>
      <p role="status" class="notice">
        {notice.value}
      </p>
      {hooks.length === 0 ? <p>{t('webhooks.empty')}</p> : null}
      {hooks.map((hook) => (
        <WebhookCard
          key={hook.id}
          session={session}
          language={language}
          hook={hook}
          types={types}
          secret={fresh.value?.id === hook.id ? fresh.value.secret : null}
          onSecret={(secret) => (fresh.value = secret ? { id: hook.id, secret } : null)}
          onChanged={changed}
        />
      ))}
      <WebhookForm
        session={session}
        language={language}
        platformPath={path}
        types={types}
        onDone={(hook, secret) => {
          fresh.value = { id: hook.id, secret }
          changed(t('webhooks.created'))
        }}
      />
    </div>
  )
}
