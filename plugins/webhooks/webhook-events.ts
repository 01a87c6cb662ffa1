/**
 * The events a webhook may subscribe to, with what each announces (docs/webhooks.md has their
 * payloads). `*` subscribes to all of them but the opt-in ones.
 */
export const WEBHOOK_EVENTS = {
  'file.uploaded': "a file's bytes are stored (any upload path)",
  'file.encoding_progress':
    "an encoding's progress, at most every webhooks.progress_interval per file (opt-in: not in *)",
  'file.encoded': "a file's encoding finished: its renditions can be played",
  'file.encoding_failed': "a file's encoding failed for good (the reason says why)",
  'file.deleted': 'a file was deleted',
  'resource.created': 'a file was published into a stream',
  'resource.updated': "a resource's fields changed",
  'resource.deleted': 'a resource was deleted',
  'user.created': 'a user was created on the platform',
  'webhook.test': 'sent by POST /webhook/<id>/test, to this webhook only',
} as const

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS

/** Events `*` does not include: a subscriber names them. */
export const OPT_IN_EVENTS: ReadonlySet<string> = new Set<WebhookEventType>(['file.encoding_progress'])

/**
 * The types a subscriber chooses from (`GET /platform/<slug>/webhook_event_types`): every type but `webhook.test`,
 * which `POST /webhook/<id>/test` sends whatever is subscribed.
 */
export const SUBSCRIBABLE_EVENTS = (Object.keys(WEBHOOK_EVENTS) as WebhookEventType[]).filter(
  (type) => type !== 'webhook.test',
)

export const isWebhookEvent = (name: string): name is WebhookEventType => Object.hasOwn(WEBHOOK_EVENTS, name)

/** Whether a webhook subscribed to `events` receives `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(type) || (events.includes('*') && !OPT_IN_EVENTS.has(type) && type !== 'webhook.test')
}
