import { Flags } from '@oclif/core'
import { createWebhookCommand } from '../../app/webhooks.js'
import { BaseCommand } from '../base-command.js'

export default class WebhooksCreate extends BaseCommand<typeof WebhooksCreate> {
  static override summary = "Subscribe a URL to a platform's events, and print its signing secret once."
  static override description = `The URL and the events follow the rules of POST /platform/<slug>/webhooks (docs/webhooks.md): https only, to public addresses only, unless webhooks.allow_http or webhooks.allow_private_networks says otherwise. --events takes * (every event but the opt-in file.encoding_progress) or event names (file.uploaded, file.encoded, resource.created, ...: docs/webhooks.md; a wrong one is answered with the list).
The secret signs every delivery (Standard Webhooks); it is shown only now (no command or answer shows it again): if it is lost, rotate it with POST /webhook/<id>/rotate_secret.`

  static override examples = [
    '<%= config.bin %> webhooks create --platform default --url https://hooks.example.org/mediactl --events file.encoded,file.encoding_failed',
    '<%= config.bin %> webhooks create --platform default --url https://hooks.example.org/all --events "*" --description "Search index"',
    '<%= config.bin %> webhooks create --platform default --url https://hooks.example.org/x --events file.uploaded --events file.deleted --disabled --json',
  ]

  static override flags = {
    platform: Flags.string({ description: 'Slug of the platform whose events are sent', required: true }),
    url: Flags.string({
      description: 'Where events are POSTed: https://... (at most 2048 characters)',
      required: true,
    }),
    events: Flags.string({
      description: 'Events subscribed to, comma-separated or repeated; * for all but the opt-in ones',
      required: true,
      multiple: true,
      // One value per --events: the next word is never taken as another event.
      multipleNonGreedy: true,
    }),
    description: Flags.string({ description: 'What the webhook is for (at most 1024 characters)' }),
    disabled: Flags.boolean({ description: 'Create it disabled: no event is recorded for it until it is enabled' }),
  }

  async run() {
    const result = await createWebhookCommand({ ...this.configOptions(), ...this.flags })
    this.log(
      `Created webhook ${result.id} on platform ${this.flags.platform}: ${result.url} (${result.events.join(', ')})`,
    )
    this.log(`Signing secret (shown only now, keep it): ${result.secret}`)
    return result
  }
}
