import type { FieldReader } from '../../src/kernel/index.js'
import { WEBHOOK_EVENTS, isWebhookEvent } from './webhook-events.js'

/** The fields of a webhook's create (url and events required) or update (any of them). */
export interface WebhookInput {
  url?: string
  events?: string[]
  description?: string
  enabled?: boolean
}

/**
 * Reads the fields (the url's address check comes after, in the service): `events`
 * comma-separated or repeated as `events[]`, known event names or `*`.
 */
export function readWebhookFields(v: FieldReader): WebhookInput {
  const url = v.string('url', { required: true, max: 2048 }) ?? undefined
  const events = v.words('events', { required: true, max: 32 }) ?? undefined
  const unknown = events?.filter((name) => name !== '*' && !isWebhookEvent(name)) ?? []
  if (unknown.length) {
    v.fail(
      'events',
      `has unknown event${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}: ` +
        `use * or some of ${Object.keys(WEBHOOK_EVENTS).join(', ')}`,
    )
  }
  const description = v.string('description', { max: 1024 })
  const enabled = v.boolean('enabled')
  return {
    url,
    events: unknown.length ? undefined : events,
    description: description === null ? '' : description,
    enabled: enabled ?? undefined,
  }
}
