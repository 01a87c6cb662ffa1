import { useSignal } from '@preact/signals'
import { type Session, postXml, putXml } from './api.js'
import { useAction } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { webhooksEn } from './messages/webhooks.js'
import { type EventType, type Webhook, webhookOf, webhookPath } from './webhooks-data.js'

/** The choice of every event, now and later, as the `events` field documents it: first, before the types. */
const EVERY_EVENT = '*'

/** A type's words in the page's language: the catalog's for the types it knows, else the API's description. */
function labelOf(language: Language, name: string, description: string): string {
  const key = `webhooks.event.${name}`
  return key in webhooksEn ? message(language, key as MessageKey) : description
}

/**
 * The form of a new webhook (`POST <platform>/webhooks`, answered with its secret, shown once by the caller) or of a
 * change to one (`PUT /webhook/<id>`, partial: only what the form holds). The API checks the URL and the events; its
 * refusal (412 naming the fields) is shown under the form.
 */
export function WebhookForm(props: {
  session: Session
  language: Language
  /** The event types of the API, offered as checkboxes after every event. */
  types: EventType[]
  /** The webhook changed; absent for a new one. */
  hook?: Webhook
  /** The platform's path (`/platform/<slug>`), where a new one is made. */
  platformPath?: string
  onDone: (hook: Webhook, secret: string) => void
  onCancel?: () => void
}) {
  const { session, language, types, hook, platformPath, onDone, onCancel } = props
  const t = (key: MessageKey) => message(language, key)
  const prefix = hook ? `webhook-${hook.id}-form` : 'webhook-new'
  const url = useSignal(hook?.url ?? '')
  const description = useSignal(hook?.description ?? '')
  const events = useSignal<ReadonlySet<string>>(new Set(hook?.events ?? []))
  const enabled = useSignal(hook?.enabled ?? true)
  const action = useAction()

  function toggle(type: string, on: boolean) {
    const next = new Set(events.value)
    if (on) next.add(type)
    else next.delete(type)
    events.value = next
  }

  async function submit(event: Event) {
    event.preventDefault()
    const form = {
      url: url.value.trim(),
      description: description.value,
      // The API reads the events comma-separated; an empty choice is sent as such, for its own "is required".
      events: [...events.value].join(','),
      enabled: enabled.value ? '1' : '0',
    }
    await action.run(async () => {
      const doc = hook
        ? await putXml(session, webhookPath(hook.id), form)
        : await postXml(session, `${platformPath}/webhooks`, form)
      const secret = doc.getElementsByTagName('secret')[0]?.textContent || ''
      onDone(webhookOf(doc.documentElement), secret)
      if (!hook) {
        url.value = ''
        description.value = ''
        events.value = new Set()
      }
    })
  }

  const headingId = `${prefix}-heading`
  return (
    <form class="card" aria-labelledby={headingId} onSubmit={submit} noValidate>
      <h2 id={headingId}>{hook ? t('webhooks.edit.title') : t('webhooks.new')}</h2>
      <label for={`${prefix}-url`}>{t('webhooks.url')}</label>
      <input
        type="url"
        id={`${prefix}-url`}
        value={url.value}
        onInput={(e) => (url.value = e.currentTarget.value)}
        aria-describedby={`${prefix}-url-hint`}
        autocomplete="url"
        spellcheck={false}
        required
      />
      <p class="hint" id={`${prefix}-url-hint`}>
        {t('webhooks.url.hint')}
      </p>
      <label for={`${prefix}-description`}>{t('webhooks.description')}</label>
      <input
        type="text"
        id={`${prefix}-description`}
        value={description.value}
        onInput={(e) => (description.value = e.currentTarget.value)}
      />
      <fieldset aria-describedby={`${prefix}-events-hint`}>
        <legend>{t('webhooks.events')}</legend>
        <p class="hint" id={`${prefix}-events-hint`}>
          {t('webhooks.events.hint')}
        </p>
        {[{ name: EVERY_EVENT, description: '' }, ...types].map(({ name, description }) => (
          <label key={name} class="webhooks-choice">
            <input
              type="checkbox"
              checked={events.value.has(name)}
              onChange={(e) => toggle(name, e.currentTarget.checked)}
            />{' '}
            <span>
              {labelOf(language, name, description)} <code>{name}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <label class="webhooks-choice">
        <input type="checkbox" checked={enabled.value} onChange={(e) => (enabled.value = e.currentTarget.checked)} />{' '}
        {t('webhooks.enabled')}
      </label>
      {action.problem ? (
        <p class="problem" role="alert">
          {message(language, 'webhooks.problem', { reason: action.problem })}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? t('webhooks.working') : hook ? t('webhooks.save') : t('webhooks.create')}
        </button>
        {onCancel ? (
          <button type="button" class="quiet" onClick={onCancel}>
            {t('webhooks.cancel')}
          </button>
        ) : null}
      </div>
    </form>
  )
}
