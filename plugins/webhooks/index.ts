import { type EventHandler, type EventName, type PluginContext, definePlugin } from '../../src/kernel/index.js'
import '../identity/index.js'
import '../files/index.js'
import '../resources/index.js'
import init from './migrations/20270129-webhooks-init.js'
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js'
import { DELIVER_JOB, deliveryJob, deliveryState } from './webhook-delivery.job.js'
import { WebhookEntity } from './webhook.entity.js'
import { webhookListeners } from './webhook.listeners.js'
import { WebhookMessageEntity } from './webhook-message.entity.js'
import { WebhookMetrics } from './webhook.metrics.js'
import { type WebhookNetwork, systemNetwork } from './webhook-network.js'
import { webhookCommands } from './webhooks.commands.js'
import { WEBHOOKS_NETWORK, WEBHOOKS_URL_POLICY } from './webhooks.keys.js'
import type { Publisher } from './webhook-publish.service.js'
import { webhookQueries } from './webhook.queries.js'
import { webhookRoutes } from './webhook.routes.js'
import { type UrlPolicy, purgeDeliveries } from './webhook.service.js'
import { webhooksConfigSchema } from './webhooks.config.js'
import type { WebhooksDeps } from './webhooks.deps.js'

export { WEBHOOK_EVENTS, type WebhookEventType } from './webhook-events.js'
export type { WebhookNetwork } from './webhook-network.js'
export { type WebhookView, webhookQueries } from './webhook.queries.js'
export { checkWebhookUrl } from './webhook-address.js'
export { readWebhookFields, type WebhookInput } from './webhook.fields.js'
export { type UrlPolicy, checkUrlField, createWebhook, deleteWebhook, readCheckedWebhook } from './webhook.service.js'
export { type WebhooksConfig, webhooksConfigSchema } from './webhooks.config.js'
export { type CreatedWebhook, type WebhookSummary, webhookCommands } from './webhooks.commands.js'
export { WEBHOOKS_NETWORK, WEBHOOKS_URL_POLICY } from './webhooks.keys.js'

/**
 * Signed webhooks, an extension of the contract (docs/webhooks.md): a platform's administrators
 * subscribe URLs to its events (files uploaded, encoded, failed, deleted; resources created,
 * updated, deleted; users created), which are recorded in the transaction of each change and
 * POSTed by the durable job queue, signed as Standard Webhooks says, retried on a schedule,
 * never to private addresses unless allowed.
 */
export default definePlugin({
  name: 'webhooks',
  dependsOn: ['platforms', 'identity', 'files', 'resources'],
  config: webhooksConfigSchema,
  entities: [WebhookEntity, WebhookMessageEntity, WebhookDeliveryEntity],
  migrations: [init],
  commands: webhookCommands,
  register(ctx) {
    const config = ctx.config
    const network: WebhookNetwork = { ...systemNetwork }
    ctx.expose(WEBHOOKS_NETWORK, network)
    const policy: UrlPolicy = { config, network }
    ctx.expose(WEBHOOKS_URL_POLICY, policy)
    const metrics = new WebhookMetrics(ctx.metrics)
    const subscriptions = ctx.cache<{ id: number; events: string[] }[]>({ tables: ['webhooks'] })
    const publisher: Publisher = {
      subscribers: (platformId, reader) =>
        subscriptions.get(String(platformId), () => webhookQueries.enabledOf(reader, platformId)),
      queue: (em, message) =>
        ctx.enqueue(
          DELIVER_JOB,
          { message: message.id },
          { em, subject: message.eventId, maxAttempts: config.retry_delays.length + 1 },
        ),
      recorded: (type) => metrics.recorded(type),
    }
    const deps: WebhooksDeps = {
      config,
      em: () => ctx.em(),
      log: ctx.log,
      links: ctx.links,
      network,
      policy,
      publisher,
      metrics,
    }
    ctx.job(DELIVER_JOB, deliveryJob(deps), deliveryState(deps))
    subscribe(ctx, webhookListeners(deps))
    ctx.routes((r) => webhookRoutes(r, deps))
    ctx.on('maintenance.purge', async ({ now, report }) => {
      report['webhook events'] = await purgeDeliveries(
        ctx.em(),
        new Date(now.getTime() - config.keep_deliveries * 1000),
      )
    })
  },
})

/** Subscribes each handler of `listeners` to its event, in their order. */
function subscribe<E extends EventName>(ctx: PluginContext<unknown>, listeners: { [K in E]: EventHandler<K> }): void {
  for (const event of Object.keys(listeners) as E[]) ctx.on(event, listeners[event])
}
