import type { BrowserScript } from '../../src/kernel/index.js'
import { scriptJson } from './script-json.js'

/** What the script of one widget inserts. */
export interface EmbedTarget {
  /** The slug of the widget (`window.mediactl.player(<slug>)`). */
  widget: string
  /** Absolute URL of the widget's player page (with the token the script was asked with, if any). */
  page: string
  width: number
  height: number
  /** The iframe's title: the widget's name. */
  title: string
}

/**
 * The JavaScript embed of a widget (`GET /embed/<widget>.js`): the `embed` bundle
 * (plugins/player/browser/embed.browser.ts, what it does is told there) run with this widget's
 * settings, its `settings` parameter. The wrapper keeps every name of the bundle out of the
 * host page's globals.
 */
export function embedScript(bundle: BrowserScript, target: EmbedTarget): string {
  const settings = scriptJson({ ...target, origin: new URL(target.page).origin })
  return `/* mediactl player embed: docs/pages.md, The player page */\n(function (settings) {\n${bundle.body.toString('utf8')}})(${settings})\n`
}
