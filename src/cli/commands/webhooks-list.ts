import { Flags } from '@oclif/core'
import { listWebhooks } from '../../app/webhooks.js'
import { BaseCommand } from '../base-command.js'
import { table } from '../format.js'

/** Longest reason shown in the table (its first line); --json has it whole. */
const REASON_WIDTH = 50

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static override summary = "List a platform's webhooks, oldest first (never their secrets)."
  static override description = `Shows each webhook's id (as in /webhook/<id>), URL, subscribed events, whether it is enabled and, when mediactl disabled it because its deliveries kept failing, why. Its deliveries are listed by GET /webhook/<id>/deliveries (docs/webhooks.md).`

  static override examples = [
    '<%= config.bin %> webhooks list --platform default',
    '<%= config.bin %> webhooks list --platform campus-tv --json',
  ]

  static override flags = {
    platform: Flags.string({ description: 'Slug of the platform', required: true }),
  }

  async run() {
    const webhooks = await listWebhooks({ ...this.configOptions(), platform: this.flags.platform })
    if (!webhooks.length) {
      this.log(`No webhooks on platform ${this.flags.platform}.`)
    } else {
      this.log(
        table([
          ['ID', 'URL', 'EVENTS', 'ENABLED', 'DISABLED REASON'],
          ...webhooks.map((w) => [
            String(w.id),
            w.url,
            w.events.join(','),
            w.enabled ? 'yes' : 'no',
            shorten(w.disabled_reason ?? ''),
          ]),
        ]),
      )
    }
    return { webhooks }
  }
}

function shorten(text: string): string {
  const line = text.split('\n')[0]!
  return line.length > REASON_WIDTH ? `${line.slice(0, REASON_WIDTH - 1)}…` : line
}
