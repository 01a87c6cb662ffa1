import { type EntityManager, type FieldReader, notFound } from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { checkWebhookUrl } from './webhook-address.js'
import { type Webhook, WebhookEntity } from './webhook.entity.js'
import { WebhookMessageEntity } from './webhook-message.entity.js'
import { type WebhookInput, readWebhookFields } from './webhook.fields.js'
import type { WebhookNetwork } from './webhook-network.js'
import { newSecret } from './webhook-signature.js'
import type { WebhooksConfig } from './webhooks.config.js'

/** Letters and digits of the public ids of webhooks and deliveries. */
export const PUBLIC_ID_LENGTH = 16

/** What checking a URL needs: the policy and the network's name resolution (never a connection). */
export interface UrlPolicy {
  config: Pick<WebhooksConfig, 'allow_private_networks' | 'allow_http'>
  network: WebhookNetwork
}

/**
 * Checks the `url` field (412 naming it): https (or http where allowed), resolving to public
 * addresses only unless `webhooks.allow_private_networks`. Nothing is dialled.
 */
export async function checkUrlField(v: FieldReader, url: string | undefined, policy: UrlPolicy): Promise<void> {
  if (url === undefined) return
  const checked = await checkWebhookUrl(url, {
    network: policy.network,
    allowPrivateNetworks: policy.config.allow_private_networks,
    allowHttp: policy.config.allow_http,
  })
  if ('error' in checked) v.fail('url', checked.error)
}

/**
 * Reads and checks a webhook's fields (create: url and events required; update: any), its
 * url's addresses included: a 412 naming every refused field. The routes and `mediactl
 * webhooks create` read them through here, so both refuse the same fields the same way.
 */
export async function readCheckedWebhook(v: FieldReader, policy: UrlPolicy): Promise<WebhookInput> {
  const input = readWebhookFields(v)
  await checkUrlField(v, input.url, policy)
  v.done()
  return input
}

/** Creates a webhook of a platform: answers its id and its secret (shown this once). */
export async function createWebhook(
  em: EntityManager,
  platformId: number,
  input: Required<Pick<WebhookInput, 'url' | 'events'>> & WebhookInput,
): Promise<{ id: number; publicId: string; secret: string }> {
  const now = new Date()
  const secret = newSecret()
  const webhook = em.create(WebhookEntity, {
    publicId: randomToken(PUBLIC_ID_LENGTH),
    platformId,
    url: input.url,
    events: input.events.join(','),
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    secret,
    previousSecret: null,
    previousSecretUntil: null,
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  })
  await em.flush()
  return { id: webhook.id, publicId: webhook.publicId, secret }
}

/** Applies a partial update; enabling a webhook again clears why it was disabled and its failing streak. */
export async function updateWebhook(em: EntityManager, id: number, changes: WebhookInput): Promise<void> {
  const webhook = await em.findOne(WebhookEntity, { id })
  if (!webhook) throw notFound('No such webhook.')
  if (changes.url !== undefined) webhook.url = changes.url
  if (changes.events !== undefined) webhook.events = changes.events.join(',')
  if (changes.description !== undefined) webhook.description = changes.description
  if (changes.enabled !== undefined) {
    if (changes.enabled && !webhook.enabled) {
      webhook.disabledReason = null
      webhook.failingSince = null
    }
    webhook.enabled = changes.enabled
  }
  webhook.updatedAt = new Date()
  await em.flush()
}

/** Deletes a webhook with its events and deliveries (database cascades); its queued deliveries end unsent. */
export async function deleteWebhook(em: EntityManager, id: number): Promise<void> {
  await em.nativeDelete(WebhookEntity, { id })
}

/**
 * Gives a webhook a new secret (answered this once); the previous one keeps signing, as a second
 * signature, for `overlapSeconds`, so receivers can switch without missing an event.
 */
export async function rotateSecret(em: EntityManager, id: number, overlapSeconds: number): Promise<string> {
  const webhook = await em.findOne(WebhookEntity, { id })
  if (!webhook) throw notFound('No such webhook.')
  const secret = newSecret()
  const now = new Date()
  webhook.previousSecret = overlapSeconds > 0 ? webhook.secret : null
  webhook.previousSecretUntil = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null
  webhook.secret = secret
  webhook.updatedAt = now
  await em.flush()
  return secret
}

/** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  webhook: Pick<Webhook, 'secret' | 'previousSecret' | 'previousSecretUntil'>,
  now: Date,
): string[] {
  const { previousSecret, previousSecretUntil } = webhook
  return previousSecret && previousSecretUntil && previousSecretUntil > now
    ? [webhook.secret, previousSecret]
    : [webhook.secret]
}

/**
 * Deletes the events settled (delivered or given up) before `before`, with their deliveries
 * (database cascade); pending ones stay whatever their age. Answers how many went.
 */
export async function purgeDeliveries(em: EntityManager, before: Date): Promise<number> {
  return em.nativeDelete(WebhookMessageEntity, { state: { $ne: 'pending' }, updatedAt: { $lt: before } })
}
