import { Args, Flags } from '@oclif/core'
import { deleteWebhookCommand } from '../../app/webhooks.js'
import { BaseCommand } from '../base-command.js'

export default class WebhooksDelete extends BaseCommand<typeof WebhooksDelete> {
  static override summary = 'Delete a webhook of a platform, with its recorded events and deliveries.'
  static override description = `Names the webhook by its id (the ID column of "mediactl webhooks list", as in /webhook/<id>) and its platform: a webhook of another platform is refused like an unknown one. Deliveries still queued for it end unsent.`

  static override examples = [
    '<%= config.bin %> webhooks delete --platform default k3Xw9QpL2mN7vB4t',
    '<%= config.bin %> webhooks delete --platform campus-tv k3Xw9QpL2mN7vB4t --json',
  ]

  static override args = {
    id: Args.string({ description: "The webhook's id (the ID column of webhooks list)", required: true }),
  }

  static override flags = {
    platform: Flags.string({ description: 'Slug of the platform the webhook belongs to', required: true }),
  }

  async run() {
    const deleted = await deleteWebhookCommand({
      ...this.configOptions(),
      platform: this.flags.platform,
      id: this.args.id,
    })
    this.log(`Deleted webhook ${deleted.id} of platform ${this.flags.platform} (${deleted.url}).`)
    return deleted
  }
}
