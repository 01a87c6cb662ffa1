import { userCommands } from '../plugins/identity/user.commands.js'
import { platformCommands } from '../plugins/platforms/platform.commands.js'
import { webhookCommands } from '../plugins/webhooks/webhooks.commands.js'
import { consoleCommands } from '../plugins/console/console.commands.js'
import type { Config, Kernel, PluginCatalog, PluginCommand, PluginDefinition } from './kernel/index.js'
import type { InstallationAdmin, ensureInstallationAdmin } from '../plugins/identity/index.js'
import type { PrintedSignInLink } from '../plugins/console/index.js'

/** A plugin module: its default export is the definition. */
type Loader = () => Promise<{ default: unknown }>

/**
 * Every plugin shipped with mediactl, by name; the `plugins` config key chooses which are
 * enabled, and only those are imported (storage-s3 brings the AWS SDK: about 10 MB of heap
 * and a slower start, for nothing when the files stay on the local disk).
 */
const LOADERS: Record<string, Loader> = {
  root: () => import('../plugins/root/index.js'),
  platforms: () => import('../plugins/platforms/index.js'),
  identity: () => import('../plugins/identity/index.js'),
  metadata: () => import('../plugins/metadata/index.js'),
  files: () => import('../plugins/files/index.js'),
  'state-redis': () => import('../plugins/state-redis/index.js'),
  'storage-fs': () => import('../plugins/storage-fs/index.js'),
  'storage-s3': () => import('../plugins/storage-s3/index.js'),
  'encoder-ffmpeg': () => import('../plugins/encoder-ffmpeg/index.js'),
  'transcriber-pocketsphinx': () => import('../plugins/transcriber-pocketsphinx/index.js'),
  'transcriber-command': () => import('../plugins/transcriber-command/index.js'),
  'queue-inline': () => import('../plugins/queue-inline/index.js'),
  'queue-bullmq': () => import('../plugins/queue-bullmq/index.js'),
  encoding: () => import('../plugins/encoding/index.js'),
  subtitles: () => import('../plugins/subtitles/index.js'),
  media: () => import('../plugins/media/index.js'),
  streams: () => import('../plugins/streams/index.js'),
  channels: () => import('../plugins/channels/index.js'),
  resources: () => import('../plugins/resources/index.js'),
  players: () => import('../plugins/players/index.js'),
  widgets: () => import('../plugins/widgets/index.js'),
  recorder: () => import('../plugins/recorder/index.js'),
  syndication: () => import('../plugins/syndication/index.js'),
  player: () => import('../plugins/player/index.js'),
  portal: () => import('../plugins/portal/index.js'),
  webhooks: () => import('../plugins/webhooks/index.js'),
  'job-admin': () => import('../plugins/job-admin/index.js'),
  console: () => import('../plugins/console/index.js'),
}

/**
 * What the operator tasks of src/app ask of particular plugins, which they reach through here only: the first
 * administrator of `mediactl init` (identity) and its console sign-in link (console), the flavor names `mediactl doctor` shows (encoder-ffmpeg).
 */
export const INSTALLATION = {
  async ensureAdmin(...args: Parameters<typeof ensureInstallationAdmin>): Promise<InstallationAdmin> {
    return (await import('../plugins/identity/index.js')).ensureInstallationAdmin(...args)
  },
  /** A sign-in link for the console (the first administrator's, printed by init), when the console is enabled. */
  async signInLink(kernel: Kernel, username: string): Promise<PrintedSignInLink> {
    return kernel.exposed((await import('../plugins/console/index.js')).SIGN_IN_LINKS).issue(username)
  },
  async flavors(config: Config): Promise<string> {
    return (await import('../plugins/encoder-ffmpeg/index.js')).flavorSummary(config['encoder-ffmpeg'])
  },
}

export const CATALOG: PluginCatalog = {
  names: Object.keys(LOADERS),
  async load(names) {
    const known = names.filter((name) => Object.hasOwn(LOADERS, name))
    return Promise.all(known.map(async (name) => (await LOADERS[name]!()).default as PluginDefinition<never>))
  },
}

/**
 * The CLI commands of the plugins that declare some (their manifests' `commands`), known
 * without loading the plugins: the CLI lists them, with their help, whatever is enabled, and
 * a command of a disabled plugin says how to enable it. Only the commands' modules are
 * imported here, not the plugins' entries (test/architecture checks both lists agree).
 */
export const CATALOG_COMMANDS: Readonly<Record<string, readonly PluginCommand[]>> = {
  platforms: platformCommands as readonly PluginCommand[],
  identity: userCommands as readonly PluginCommand[],
  webhooks: webhookCommands as readonly PluginCommand[],
  console: consoleCommands as readonly PluginCommand[],
}
