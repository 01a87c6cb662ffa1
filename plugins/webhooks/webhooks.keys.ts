import { serviceKey } from '../../src/kernel/index.js'
import type { WebhookNetwork } from './webhook-network.js'
import type { UrlPolicy } from './webhook.service.js'

/**
 * How this process reaches receivers: name resolution and connections. One object, read at
 * every delivery and URL check, so tests swap its members for a loopback-only network.
 */
export const WEBHOOKS_NETWORK = serviceKey<WebhookNetwork>('webhooks.network')

/** What a webhook's URL is checked against (the configuration's allowances, the network): the routes' and the CLI's. */
export const WEBHOOKS_URL_POLICY = serviceKey<UrlPolicy>('webhooks.url-policy')
