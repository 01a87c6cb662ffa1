import { type CommandContext, FieldReader, type Form, UserError, defineCommand } from '../../src/kernel/index.js'
import { firstLine } from '../../src/shared/text.js'
import { namedPlatform } from '../platforms/index.js'
import { type WebhookView, webhookQueries } from './webhook.queries.js'
import { createWebhook, deleteWebhook, readCheckedWebhook } from './webhook.service.js'
import { WEBHOOKS_URL_POLICY } from './webhooks.keys.js'

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

function summary(ctx: CommandContext, w: WebhookView): WebhookSummary {
  return {
    id: w.publicId,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    disabled_reason: w.disabledReason,
    failing_since: w.failingSince?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    href: ctx.links.url('webhook', w.publicId),
  }
}

/** Longest disabled reason shown in the table. */
const REASON_WIDTH = 50

const PLATFORM = { type: 'string', description: 'Slug of the platform', required: true } as const

const webhooksList = defineCommand({
  name: 'webhooks list',
  summary: "List a platform's webhooks, oldest first (never their secrets).",
  description: `Shows each webhook's id (as in /webhook/<id>), URL, subscribed events, whether it is enabled and, when mediactl disabled it because its deliveries kept failing, why. Its deliveries are listed by GET /webhook/<id>/deliveries (docs/webhooks.md).`,
  examples: ['mediactl webhooks list --platform default', 'mediactl webhooks list --platform campus-tv --json'],
  flags: { platform: PLATFORM },
  async run(ctx, { flags }) {
    const platform = await namedPlatform(ctx.reader, flags.platform)
    const count = await webhookQueries.count(ctx.reader, platform.id)
    const page = count ? await webhookQueries.page(ctx.reader, platform.id, 0, count) : []
    return { webhooks: page.map((w) => summary(ctx, w)) }
  },
  print({ webhooks }, out, { flags }) {
    if (!webhooks.length) return out.line(`No webhooks on platform ${flags.platform}.`)
    out.table([
      ['ID', 'URL', 'EVENTS', 'ENABLED', 'DISABLED REASON'],
      ...webhooks.map((w) => [
        w.id,
        w.url,
        w.events.join(','),
        w.enabled ? 'yes' : 'no',
        firstLine(w.disabled_reason ?? '', REASON_WIDTH),
      ]),
    ])
  },
})

const webhooksCreate = defineCommand({
  name: 'webhooks create',
  summary: "Subscribe a URL to a platform's events, and print its signing secret once.",
  description: `The URL and the events follow the rules of POST /platform/<slug>/webhooks (docs/webhooks.md), checked by the same code: https only, to public addresses only, unless webhooks.allow_http or webhooks.allow_private_networks says otherwise. --events takes * (every event but the opt-in file.encoding_progress) or event names (file.uploaded, file.encoded, resource.created, ...: docs/webhooks.md; a wrong one is answered with the list).
The secret signs every delivery (Standard Webhooks); it is shown only now (no command or answer shows it again): if it is lost, rotate it with POST /webhook/<id>/rotate_secret.`,
  examples: [
    'mediactl webhooks create --platform default --url https://hooks.example.org/mediactl --events file.encoded,file.encoding_failed',
    'mediactl webhooks create --platform default --url https://hooks.example.org/all --events "*" --description "Search index"',
    'mediactl webhooks create --platform default --url https://hooks.example.org/x --events file.uploaded --events file.deleted --disabled --json',
  ],
  flags: {
    platform: { ...PLATFORM, description: 'Slug of the platform whose events are sent' },
    url: {
      type: 'string',
      description: 'Where events are POSTed: https://... (at most 2048 characters)',
      required: true,
    },
    events: {
      type: 'string',
      description: 'Events subscribed to, comma-separated or repeated; * for all but the opt-in ones',
      required: true,
      multiple: true,
    },
    description: { type: 'string', description: 'What the webhook is for (at most 1024 characters)' },
    disabled: {
      type: 'boolean',
      description: 'Create it disabled: no event is recorded for it until it is enabled',
    },
  },
  async run(ctx, { flags }): Promise<CreatedWebhook> {
    const platform = await namedPlatform(ctx.reader, flags.platform)
    // The flags as the API's fields, read and checked by the code of POST /platform/<slug>/webhooks.
    const form: Form = { url: flags.url, events: flags.events }
    if (flags.description !== undefined) form.description = flags.description
    const input = await readCheckedWebhook(new FieldReader(form, 'create'), ctx.use(WEBHOOKS_URL_POLICY))
    const { publicId, secret } = await createWebhook(ctx.em(), platform.id, {
      ...input,
      url: input.url!,
      events: input.events!,
      enabled: !flags.disabled,
    })
    return { id: publicId, url: input.url!, events: input.events!, href: ctx.links.url('webhook', publicId), secret }
  },
  print(result, out, { flags }) {
    out.line(`Created webhook ${result.id} on platform ${flags.platform}: ${result.url} (${result.events.join(', ')})`)
    out.line(`Signing secret (shown only now, keep it): ${result.secret}`)
  },
})

const webhooksDelete = defineCommand({
  name: 'webhooks delete',
  summary: 'Delete a webhook of a platform, with its recorded events and deliveries.',
  description: `Names the webhook by its id (the ID column of "mediactl webhooks list", as in /webhook/<id>) and its platform: a webhook of another platform is refused like an unknown one. Deliveries still queued for it end unsent.`,
  examples: [
    'mediactl webhooks delete --platform default k3Xw9QpL2mN7vB4t',
    'mediactl webhooks delete --platform campus-tv k3Xw9QpL2mN7vB4t --json',
  ],
  args: { id: { description: "The webhook's id (the ID column of webhooks list)", required: true } },
  flags: { platform: { ...PLATFORM, description: 'Slug of the platform the webhook belongs to' } },
  async run(ctx, { flags, args }): Promise<WebhookSummary> {
    const platform = await namedPlatform(ctx.reader, flags.platform)
    const webhook = await webhookQueries.byPublicId(ctx.reader, args.id)
    // Another platform's webhook is refused like an unknown one: the slug is part of what names it.
    if (!webhook || webhook.platformId !== platform.id) {
      throw new UserError(`no webhook ${args.id} on platform ${platform.slug}`, {
        hint: `list them with "mediactl webhooks list --platform ${platform.slug}"`,
      })
    }
    await deleteWebhook(ctx.em(), webhook.id)
    return summary(ctx, webhook)
  },
  print: (deleted, out, { flags }) =>
    out.line(`Deleted webhook ${deleted.id} of platform ${flags.platform} (${deleted.url}).`),
})

/** The webhooks plugin's commands (its manifest's `commands`). */
export const webhookCommands = [webhooksList, webhooksCreate, webhooksDelete]
