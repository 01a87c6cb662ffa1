import type { EntityManager, LinkBuilder, Logger } from '../../src/kernel/index.js'
import type { WebhookMetrics } from './webhook.metrics.js'
import type { WebhookNetwork } from './webhook-network.js'
import type { Publisher } from './webhook-publish.service.js'
import type { UrlPolicy } from './webhook.service.js'
import type { WebhooksConfig } from './webhooks.config.js'

/**
 * What the webhooks' delivery job, listeners and routes get from `register` (docs/architecture.md,
 * How a plugin gets what it uses).
 */
export interface WebhooksDeps {
  readonly config: WebhooksConfig
  /** A fresh EntityManager, for the deliveries (outside a request). */
  em(): EntityManager
  readonly log: Logger
  /** Absolute URLs of the objects an event names. */
  readonly links: LinkBuilder
  /** How the network is reached (`WEBHOOKS_NETWORK`, replaced in tests so that nothing leaves loopback). */
  readonly network: WebhookNetwork
  /** Which addresses a webhook may have (`WEBHOOKS_URL_POLICY`, shared with the commands). */
  readonly policy: UrlPolicy
  /** Records an event for each subscribed webhook of its platform and queues its deliveries. */
  readonly publisher: Publisher
  readonly metrics: WebhookMetrics
}
