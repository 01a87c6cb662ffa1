import { type Session, childText, getPage, getXml, ownPlatformPath } from './api.js'

/** An event type a webhook may subscribe to, as the API lists them (`GET <platform>/webhook_event_types`). */
export interface EventType {
  name: string
  /** What it announces, in English (the console's catalog has its own words for the types it knows). */
  description: string
  /** Whether `*` (every event) includes it. */
  inAll: boolean
}

export interface Webhook {
  id: string
  url: string
  events: string[]
  description: string
  enabled: boolean
  disabledReason: string
  failingSince: string
  createdAt: string
}

export interface Delivery {
  id: string
  eventId: string
  type: string
  eventState: string
  attempt: number
  /** The receiver's HTTP status; 0 when no answer came (`error` says why). */
  status: number
  error: string
  duration: number
  response: string
  createdAt: string
}

/** A `webhook` element of the API. */
export function webhookOf(element: Element): Webhook {
  return {
    id: childText(element, 'id'),
    url: childText(element, 'url'),
    events: Array.from(element.getElementsByTagName('event')).map((event) => event.textContent || ''),
    description: childText(element, 'description'),
    enabled: childText(element, 'enabled') === '1',
    disabledReason: childText(element, 'disabled_reason'),
    failingSince: childText(element, 'failing_since'),
    createdAt: childText(element, 'created_at'),
  }
}

function deliveryOf(element: Element): Delivery {
  return {
    id: childText(element, 'id'),
    eventId: childText(element, 'event_id'),
    type: childText(element, 'type'),
    eventState: childText(element, 'event_state'),
    attempt: Number(childText(element, 'attempt') || 0),
    status: Number(childText(element, 'status') || 0),
    error: childText(element, 'error'),
    duration: Number(childText(element, 'duration') || 0),
    response: childText(element, 'response'),
    createdAt: childText(element, 'created_at'),
  }
}

/** Most webhooks one platform is shown with: far more than a platform needs (the API pages them all the same). */
const MOST_WEBHOOKS = 200

/** Far more than the types there are (the API pages them like every list). */
const MOST_TYPES = 500

export interface PlatformWebhooks {
  platform: string
  path: string
  hooks: Webhook[]
  types: EventType[]
}

/** The user's platform (its slug and path), its webhooks, oldest first, and the event types they may subscribe to. */
export async function loadWebhooks(session: Session): Promise<PlatformWebhooks> {
  const path = await ownPlatformPath(session)
  const platform = decodeURIComponent(path.replace(/^\/platform\//, ''))
  const [{ doc }, listed] = await Promise.all([
    getPage(session, `${path}/webhooks`, 0, MOST_WEBHOOKS),
    getPage(session, `${path}/webhook_event_types`, 0, MOST_TYPES),
  ])
  const hooks = Array.from(doc.documentElement.children)
    .filter((element) => element.tagName === 'webhook')
    .map(webhookOf)
  const types = Array.from(listed.doc.getElementsByTagName('event_type')).map((element) => ({
    name: childText(element, 'name'),
    description: childText(element, 'description'),
    inAll: childText(element, 'in_all') === '1',
  }))
  return { platform, path, hooks, types }
}

/** The path of a webhook (`/webhook/<id>`). */
export const webhookPath = (id: string): string => `/webhook/${encodeURIComponent(id)}`

/** One page of a webhook's delivery attempts, newest first, and how many there are. */
export async function loadDeliveries(
  session: Session,
  id: string,
  start: number,
  count: number,
): Promise<{ deliveries: Delivery[]; total: number }> {
  const { doc, total } = await getPage(session, `${webhookPath(id)}/deliveries`, start, count)
  return { deliveries: Array.from(doc.getElementsByTagName('delivery')).map(deliveryOf), total }
}

/** A webhook as the API has it now (after a change). */
export async function loadWebhook(session: Session, id: string): Promise<Webhook> {
  return webhookOf((await getXml(session, webhookPath(id))).documentElement)
}
