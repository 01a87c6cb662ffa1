import { useSignal } from '@preact/signals'
import { type Session, childText, deleteAt, postXml } from './api.js'
import { Confirm } from './confirm.js'
import { useAction } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { type EventType, type Webhook, webhookPath } from './webhooks-data.js'
import { DeliveryLog, type Watch } from './webhooks-deliveries.js'
import { WebhookForm } from './webhooks-form.js'
import { when } from './webhooks-format.js'
import { SecretShown } from './webhooks-secret.js'

type Panel =
  | { open: 'none' }
  | { open: 'edit' }
  | { open: 'confirm-delete' }
  | { open: 'confirm-rotate' }
  | { open: 'log'; watch: Watch | null; key: string }

/**
 * One webhook: its address (the card's heading), events, state and description, and what can be done with it:
 * change it, make a new secret (shown once), send a test (its result in the log), read the delivery log, delete it
 * after a confirmation. Each is one API request; a refusal is shown with the API's reason.
 */
export function WebhookCard(props: {
  session: Session
  language: Language
  hook: Webhook
  types: EventType[]
  /** The secret the API just answered for this webhook (creation or rotation), shown once. */
  secret: string | null
  onSecret: (secret: string | null) => void
  onChanged: (notice: string) => void
}) {
  const { session, language, hook, types, secret, onSecret, onChanged } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const panel = useSignal<Panel>({ open: 'none' })
  const action = useAction()

  const rotate = () =>
    action.run(async () => {
      const doc = await postXml(session, `${webhookPath(hook.id)}/rotate_secret`)
      panel.value = { open: 'none' }
      onSecret(childText(doc, 'secret'))
    })

  const test = () =>
    action.run(async () => {
      const eventId = childText(await postXml(session, `${webhookPath(hook.id)}/test`), 'event_id')
      panel.value = { open: 'log', watch: { eventId }, key: eventId }
    })

  const remove = () =>
    action.run(async () => {
      await deleteAt(session, webhookPath(hook.id))
      onChanged(t('webhooks.deleted', { url: hook.url }))
    })

  const headingId = `webhook-${hook.id}-heading`
  const open = panel.value.open
  const logOpen = panel.value.open === 'log'
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{hook.url}</h2>
      <dl class="facts webhooks-facts">
        <dt>{t('webhooks.events')}</dt>
        <dd>{hook.events.join(', ')}</dd>
        <dt>{t('webhooks.state')}</dt>
        <dd>
          {hook.enabled ? t('webhooks.state.on') : t('webhooks.state.off')}
          {hook.disabledReason ? ` (${t('webhooks.state.disabled_by', { reason: hook.disabledReason })})` : ''}
          {hook.failingSince ? ` (${t('webhooks.failing_since', { time: when(hook.failingSince, language) })})` : ''}
        </dd>
        {hook.description ? (
          <>
            <dt>{t('webhooks.description')}</dt>
            <dd>{hook.description}</dd>
          </>
        ) : null}
        <dt>{t('webhooks.created_at')}</dt>
        <dd>{when(hook.createdAt, language)}</dd>
      </dl>
      {secret ? <SecretShown language={language} id={hook.id} secret={secret} onDone={() => onSecret(null)} /> : null}
      <div class="actions" role="group" aria-labelledby={headingId}>
        <button type="button" onClick={() => (panel.value = { open: 'edit' })} aria-expanded={open === 'edit'}>
          {t('webhooks.edit')}
        </button>
        <button type="button" onClick={test} disabled={action.busy}>
          {t('webhooks.test')}
        </button>
        <button
          type="button"
          aria-expanded={logOpen}
          onClick={() => (panel.value = logOpen ? { open: 'none' } : { open: 'log', watch: null, key: 'log' })}
        >
          {logOpen ? t('webhooks.log.hide') : t('webhooks.log')}
        </button>
        <button type="button" onClick={() => (panel.value = { open: 'confirm-rotate' })}>
          {t('webhooks.rotate')}
        </button>
        <button type="button" class="danger" onClick={() => (panel.value = { open: 'confirm-delete' })}>
          {t('webhooks.delete')}
        </button>
      </div>
      {action.problem ? (
        <p class="problem" role="alert">
          {t('webhooks.problem', { reason: action.problem })}
        </p>
      ) : null}
      {open === 'edit' ? (
        <WebhookForm
          session={session}
          language={language}
          hook={hook}
          types={types}
          onDone={() => {
            panel.value = { open: 'none' }
            onChanged(t('webhooks.saved'))
          }}
          onCancel={() => (panel.value = { open: 'none' })}
        />
      ) : null}
      {open === 'confirm-delete' || open === 'confirm-rotate' ? (
        <Confirm
          key={open}
          dialog
          question={
            open === 'confirm-delete' ? t('webhooks.delete.confirm', { url: hook.url }) : t('webhooks.rotate.confirm')
          }
          yes={open === 'confirm-delete' ? t('webhooks.delete.yes') : t('webhooks.rotate.yes')}
          no={t('webhooks.cancel')}
          danger={open === 'confirm-delete'}
          busy={action.busy}
          onYes={open === 'confirm-delete' ? remove : rotate}
          onNo={() => (panel.value = { open: 'none' })}
        />
      ) : null}
      {panel.value.open === 'log' ? (
        <DeliveryLog
          key={panel.value.key}
          session={session}
          language={language}
          hook={hook}
          watch={panel.value.watch}
        />
      ) : null}
    </section>
  )
}
