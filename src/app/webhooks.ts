import { platformQueries } from '../../plugins/platforms/index.js'
import type { WebhookView } from '../../plugins/webhooks/index.js'
import { FieldReader, type Kernel, UserError, pluginConfig } from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'

/** A webhook as `mediactl webhooks list --json` prints it (never its secret). */
export interface WebhookSummary {
  /** What the API names it by: `/webhook/<id>`. */
  id: string
  url: string
  events: string[]
  description: string
  enabled: boolean
  /** Why mediactl disabled it (its deliveries kept failing); null otherwise. */
  disabled_reason: string | null
  /** Since when its deliveries fail without one succeeding; null while they succeed. */
  failing_since: string | null
  created_at: string
  href: string
}

/** What `webhooks create` prints: the secret is shown this once. */
export interface CreatedWebhook {
  id: string
  url: string
  events: string[]
  href: string
  secret: string
}

export interface WebhookListOptions extends BootRequest {
  platform: string
}

export interface CreateWebhookOptions extends BootRequest {
  platform: string
  url: string
  /** Each value comma-separated or not, as the API's `events` field (repeated). */
  events: string[]
  description?: string
  /** Created disabled: nothing is recorded for it until it is enabled (PUT /webhook/<id>). */
  disabled?: boolean
}

export interface DeleteWebhookOptions extends BootRequest {
  platform: string
  /** Its id as the API and `webhooks list` show it; anything but a webhook of that platform is refused. */
  id: string
}

function summary(kernel: Kernel, w: WebhookView): WebhookSummary {
  return {
    id: w.publicId,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    disabled_reason: w.disabledReason,
    failing_since: w.failingSince?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    href: kernel.services.links.url('webhook', w.publicId),
  }
}

/**
 * The webhooks plugin's public entry, with the API's own reading and URL check of a webhook's fields, so that the
 * CLI accepts and refuses exactly what POST /platform/<slug>/webhooks does. Imported when a webhooks command runs:
 * not on every start of the CLI.
 */
const webhooksPlugin = () => import('../../plugins/webhooks/index.js')

type WebhooksPlugin = Awaited<ReturnType<typeof webhooksPlugin>>

/** Boots the kernel, refuses unless the webhooks plugin is enabled and the platform `slug` exists, runs `work`, closes. */
async function withPlatform<T>(
  options: BootRequest & { platform: string },
  work: (kernel: Kernel, platform: { id: number; slug: string }, webhooks: WebhooksPlugin) => Promise<T>,
): Promise<T> {
  const webhooks = await webhooksPlugin()
  return withKernel(options, async (kernel) => {
    if (!kernel.config.plugins.includes('webhooks')) {
      throw new UserError('the webhooks plugin is not enabled: add webhooks to the "plugins" config key')
    }
    const platform = await platformQueries.bySlug(kernel.services.reader, options.platform)
    if (!platform) {
      throw new UserError(
        `no platform "${options.platform}": list them with GET /platforms or create one with "mediactl platform create"`,
      )
    }
    return await work(kernel, platform, webhooks)
  })
}

/** Every webhook of a platform, oldest first. */
export function listWebhooks(options: WebhookListOptions): Promise<WebhookSummary[]> {
  return withPlatform(options, async (kernel, platform, { webhookQueries }) => {
    const reader = kernel.services.reader
    const count = await webhookQueries.count(reader, platform.id)
    const page = count ? await webhookQueries.page(reader, platform.id, 0, count) : []
    return page.map((w) => summary(kernel, w))
  })
}

/**
 * Creates a webhook with the rules of the API: its fields read and its URL checked by the same
 * code, under this configuration's `webhooks.allow_private_networks` and `allow_http`. A refusal
 * names the flags, as `--url ...; --events ...`.
 */
export function createWebhookCommand(options: CreateWebhookOptions): Promise<CreatedWebhook> {
  return withPlatform(options, async (kernel, platform, webhooks) => {
    const { WEBHOOKS_NETWORK, checkUrlField, createWebhook, readWebhookFields, webhooksConfigSchema } = webhooks
    // src/app reads a plugin's section as the plugin does at boot (the kernel has validated it already).
    const config = pluginConfig(kernel.config, 'webhooks', webhooksConfigSchema)
    const form = {
      url: options.url,
      events: options.events,
      ...(options.description === undefined ? {} : { description: options.description }),
    }
    const v = new FieldReader(form, 'create')
    const input = readWebhookFields(v)
    await checkUrlField(v, input.url, { config, network: kernel.exposed(WEBHOOKS_NETWORK) })
    const refused = Object.entries(v.errors).map(([field, message]) => `--${field} ${message}`)
    if (refused.length) throw new UserError(refused.join('; '))
    const { publicId, secret } = await createWebhook(kernel.em(), platform.id, {
      ...input,
      url: input.url!,
      events: input.events!,
      enabled: !options.disabled,
    })
    const href = kernel.services.links.url('webhook', publicId)
    return { id: publicId, url: input.url!, events: input.events!, href, secret }
  })
}

/** Deletes a webhook of a platform (its recorded events and deliveries go with it); answers what it was. */
export function deleteWebhookCommand(options: DeleteWebhookOptions): Promise<WebhookSummary> {
  return withPlatform(options, async (kernel, platform, { deleteWebhook, webhookQueries }) => {
    const webhook = await webhookQueries.byPublicId(kernel.services.reader, options.id)
    // Another platform's webhook is refused like an unknown one: the slug is part of what names it.
    if (!webhook || webhook.platformId !== platform.id) {
      throw new UserError(
        `no webhook ${options.id} on platform ${platform.slug}: list them with "mediactl webhooks list --platform ${platform.slug}"`,
      )
    }
    await deleteWebhook(kernel.em(), webhook.id)
    return summary(kernel, webhook)
  })
}
