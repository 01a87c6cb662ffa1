import { defineCommand } from '../../src/kernel/index.js'
import { type PrintedSignInLink, SIGN_IN_LINKS } from './sign-in-links.service.js'

const userSignInLink = defineCommand({
  name: 'user sign-in-link',
  summary: 'Print a one-time link where a user chooses a console password and signs in.',
  description: `The link opens the console's page where the user chooses a password (at least 12 characters); it
then signs them in. It can be used once, within console.sign_in_link_ttl seconds (24 h by default). Making a
new link leaves older ones usable until they expire or are used; choosing a password ends the user's other
console sessions. Send the link to the user only: whoever opens it first becomes them in the console.`,
  examples: ['mediactl user sign-in-link alice', 'mediactl user sign-in-link alice --json'],
  args: { username: { description: 'The user the link signs in', required: true } },
  run(ctx, { args }): Promise<PrintedSignInLink> {
    return ctx.use(SIGN_IN_LINKS).issue(args.username)
  },
  print(result, out) {
    out.line(`Sign-in link for ${result.username} (once, until ${result.expires_at}): ${result.url}`)
  },
})

/** The console plugin's commands (its manifest's `commands`). */
export const consoleCommands = [userSignInLink]
