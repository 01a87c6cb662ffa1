import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { PLATFORM_KIND } from '../platforms/index.js'
import { type WebhookView, webhookQueries } from './webhook.queries.js'

/** What a public id looks like (anything else is no webhook, without a query). */
export const PUBLIC_ID = /^[A-Za-z0-9]{16}$/

/** Who manages a platform's webhooks: its administrators (and the installation's). */
export const MANAGES = 'platform.edit'

/**
 * The webhook named by `:webhook`, once the caller may manage its platform's webhooks: 404 for
 * an unknown id and for a webhook of a platform the caller does not see, 403 when they see the
 * platform without administering it.
 */
export async function webhookFromPath(c: HttpContext): Promise<WebhookView> {
  const raw = c.param('webhook')
  const webhook = PUBLIC_ID.test(raw) ? await webhookQueries.byPublicId(c.reader, raw) : undefined
  const missing = notFound(`No webhook "${raw}".`)
  if (!webhook) throw missing
  const platform = { kind: PLATFORM_KIND, id: webhook.platformId }
  // Exactly the answer of a missing webhook, naming nothing of a platform the caller does not see.
  if (!(await c.authz.can(c.principal, 'platform.view', platform))) throw missing
  await c.authz.require(c.principal, MANAGES, platform)
  return webhook
}
