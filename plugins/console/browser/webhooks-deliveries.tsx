import { useSignal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import { type Session, postXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { type Delivery, type Webhook, loadDeliveries, webhookPath } from './webhooks-data.js'
import { when } from './webhooks-format.js'

/** Attempts to a page of the log. */
const PAGE = 20
/** How often, and how many times, the log asks again while an attempt is awaited (deliveries are made by jobs). */
const WATCH_EVERY_MS = 1000
const WATCH_TIMES = 60

/**
 * What the log waits for after an action: the first attempt of a test event (`eventId`), or any attempt beyond the
 * `after` there were (a redelivery).
 */
export type Watch = { eventId: string } | { after: number }

const KNOWN_STATES = ['pending', 'delivered', 'failed'] as const

/**
 * A webhook's delivery log, newest first, a page at a time (`GET /webhook/<id>/deliveries` with `Range`): each
 * attempt's event, time, event state, attempt number, HTTP status (or why no answer came) and the start of the
 * answer the API keeps, with **Send again** (`POST .../redeliver`). After a test or a redelivery it asks again every
 * second until the attempt shows, and says how the test went (a new test mounts a new log: `key` it by the event).
 */
export function DeliveryLog(props: { session: Session; language: Language; hook: Webhook; watch: Watch | null }) {
  const { session, language, hook } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const start = useSignal(0)
  const watch = useSignal<Watch | null>(props.watch)
  const tries = useSignal(0)
  const action = useAction()
  const { current, reload } = useLoad(() => loadDeliveries(session, hook.id, start.value, PAGE))

  const page = current.state === 'ready' ? current.value : null
  const tested =
    page && watch.value && 'eventId' in watch.value ? findEvent(page.deliveries, watch.value.eventId) : null
  const waiting = Boolean(page && watch.value && !satisfied(watch.value, page, tested) && tries.value < WATCH_TIMES)

  useEffect(() => {
    if (!waiting) return
    const timer = setTimeout(() => {
      tries.value++
      reload()
    }, WATCH_EVERY_MS)
    return () => clearTimeout(timer)
  }, [waiting, page])

  function showPage(first: number) {
    start.value = first
    reload()
  }

  async function redeliver(delivery: Delivery, total: number) {
    const path = `${webhookPath(hook.id)}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`
    if (await action.run(() => postXml(session, path))) {
      watch.value = { after: total }
      tries.value = 0
      showPage(0)
    }
  }

  const headingId = `webhook-${hook.id}-log`
  return (
    <section class="card" aria-labelledby={headingId}>
      <h3 id={headingId}>{t('webhooks.deliveries', { url: hook.url })}</h3>
      {watch.value && 'eventId' in watch.value ? (
        <p role="status" class={tested ? (accepted(tested) ? 'notice' : 'problem') : undefined}>
          {!tested
            ? t('webhooks.test.sent')
            : tested.status
              ? t('webhooks.test.answered', { status: tested.status, duration: tested.duration })
              : t('webhooks.test.failed', { error: tested.error })}
        </p>
      ) : null}
      {action.done ? (
        <p class="notice" role="status">
          {t('webhooks.delivery.redelivered')}
        </p>
      ) : null}
      {action.problem ? (
        <p class="problem" role="alert">
          {t('webhooks.problem', { reason: action.problem })}
        </p>
      ) : null}
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {page ? (
        <LogPage
          t={t}
          language={language}
          deliveries={page.deliveries}
          total={page.total}
          first={start.value}
          waiting={waiting}
          onRedeliver={(delivery) => redeliver(delivery, page.total)}
        />
      ) : null}
      <div class="actions">
        {start.value > 0 ? (
          <button type="button" onClick={() => showPage(Math.max(0, start.value - PAGE))}>
            {t('webhooks.deliveries.newer')}
          </button>
        ) : null}
        {page && start.value + PAGE < page.total ? (
          <button type="button" onClick={() => showPage(start.value + PAGE)}>
            {t('webhooks.deliveries.older')}
          </button>
        ) : null}
        <button type="button" class="quiet" onClick={reload}>
          {t('webhooks.deliveries.refresh')}
        </button>
      </div>
    </section>
  )
}

type T = (key: MessageKey, values?: Record<string, string | number>) => string

/** The attempts of one page, or the empty log. */
function LogPage(props: {
  t: T
  language: Language
  deliveries: Delivery[]
  total: number
  first: number
  waiting: boolean
  onRedeliver: (delivery: Delivery) => void
}) {
  const { t, language, deliveries, total, first, waiting, onRedeliver } = props
  if (!deliveries.length) {
    return <p role="status">{waiting ? t('webhooks.deliveries.waiting') : t('webhooks.deliveries.empty')}</p>
  }
  return (
    <div>
      <p role="status">
        {waiting
          ? t('webhooks.deliveries.waiting')
          : t('webhooks.deliveries.showing', { first: first + 1, last: first + deliveries.length, total })}
      </p>
      <div class="scroll">
        <table class="webhooks-log">
          <thead>
            <tr>
              <th scope="col">{t('webhooks.delivery.event')}</th>
              <th scope="col">{t('webhooks.delivery.time')}</th>
              <th scope="col">{t('webhooks.delivery.state')}</th>
              <th scope="col">{t('webhooks.delivery.attempt')}</th>
              <th scope="col">{t('webhooks.delivery.status')}</th>
              <th scope="col">{t('webhooks.delivery.response')}</th>
              <th scope="col">
                <span class="hidden">{t('webhooks.delivery.redeliver')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => {
              const time = when(delivery.createdAt, language)
              return (
                <tr key={delivery.id}>
                  <th scope="row">{delivery.type}</th>
                  <td>{time}</td>
                  <td>{stateLabel(t, delivery.eventState)}</td>
                  <td>{delivery.attempt}</td>
                  <td>{delivery.status || `${t('webhooks.delivery.no_answer')}: ${delivery.error}`}</td>
                  <td class="webhooks-response">{delivery.response}</td>
                  <td>
                    <button
                      type="button"
                      class="quiet"
                      aria-label={t('webhooks.delivery.redeliver.label', { event: delivery.type, time })}
                      onClick={() => onRedeliver(delivery)}
                    >
                      {t('webhooks.delivery.redeliver')}
                    </button>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function stateLabel(t: T, state: string): string {
  return (KNOWN_STATES as readonly string[]).includes(state)
    ? t(`webhooks.event_state.${state as (typeof KNOWN_STATES)[number]}`)
    : state
}

/** The first attempt of the event, the oldest of its attempts on the page. */
function findEvent(deliveries: Delivery[], eventId: string): Delivery | null {
  return deliveries.filter((delivery) => delivery.eventId === eventId).pop() ?? null
}

function satisfied(watch: Watch, page: { total: number }, tested: Delivery | null): boolean {
  return 'eventId' in watch ? tested !== null : page.total > watch.after
}

/** Whether the receiver accepted the attempt: a 2xx, as the deliveries count it. */
const accepted = (delivery: Delivery): boolean => delivery.status >= 200 && delivery.status < 300
