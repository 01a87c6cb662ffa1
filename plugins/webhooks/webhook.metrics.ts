import type { Counter, Histogram, PluginMetrics } from '../../src/kernel/index.js'

/**
 * How an attempt ended, a bounded label: `delivered` (a 2xx), `rejected` (another status: 3xx
 * included, redirects are not followed), `unreachable` (no answer: DNS, connection, timeout),
 * `refused` (the address is not allowed: private networks).
 */
export type DeliveryResult = 'delivered' | 'rejected' | 'unreachable' | 'refused'

/** The webhook metrics (docs/operations.md, Metrics), counted in the process that does the work. */
export class WebhookMetrics {
  private readonly events: Counter<'type'>
  private readonly attempts: Counter<'result'>
  private readonly seconds: Histogram<'result'>
  private readonly given: Counter
  private readonly disabled: Counter

  constructor(metrics: PluginMetrics) {
    this.events = metrics.counter(
      'mediactl_webhook_events_total',
      'Events recorded for delivery to a webhook (one per subscribed webhook), by event type.',
      ['type'],
    )
    this.attempts = metrics.counter(
      'mediactl_webhook_deliveries_total',
      'Delivery attempts, by result (delivered, rejected, unreachable, refused: the name resolves to no allowed address).',
      ['result'],
    )
    this.seconds = metrics.histogram(
      'mediactl_webhook_delivery_seconds',
      'Time of a delivery attempt, from resolving the name to the end of the answer, by result.',
      ['result'],
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    )
    this.given = metrics.counter(
      'mediactl_webhook_events_failed_total',
      'Events given up after their last attempt (or cancelled, or their webhook disabled).',
    )
    this.disabled = metrics.counter(
      'mediactl_webhooks_disabled_total',
      'Webhooks disabled because their deliveries kept failing for webhooks.disable_after.',
    )
  }

  recorded(type: string): void {
    this.events.inc({ type })
  }

  attempted(result: DeliveryResult, seconds: number): void {
    this.attempts.inc({ result })
    this.seconds.observe({ result }, seconds)
  }

  gaveUp(): void {
    this.given.inc()
  }

  disabledOne(): void {
    this.disabled.inc()
  }
}
