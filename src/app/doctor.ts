import { Readable } from 'node:stream'
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs'
import { binaryVersion, findMediaBinary } from '../shared/binaries.js'
import {
  type Config,
  ConfigError,
  type Kernel,
  type LoadConfigOptions,
  databaseTarget,
  instancePaths,
  loadConfig,
  pluginConfig,
  readSecret,
  redactUrl,
} from '../kernel/index.js'
import { createLogger } from '../kernel/log.js'
import { bootKernel } from './boot.js'
import { type EncoderConfig, encoderConfigSchema } from '../../plugins/encoder-ffmpeg/index.js'

export interface Check {
  name: string
  ok: boolean
  /** What was found. */
  detail: string
  /** How to fix a failed check. */
  fix?: string
}

const CONFIG_FIX = 'correct the key named above (docs/configuration.md lists every key)'

async function withKernel<T>(options: LoadConfigOptions, use: (kernel: Kernel) => Promise<T>): Promise<T> {
  const kernel = await bootKernel({ ...options, logger: createLogger('silent') })
  try {
    return await use(kernel)
  } finally {
    await kernel.close()
  }
}

/** Writes, reads back and deletes a small probe object through the configured storage backend. */
async function storageCheck(kernel: Kernel): Promise<Check> {
  const backend = kernel.plugins.find((p) => p.name.startsWith('storage-'))?.name ?? 'storage'
  const key = `doctor/probe-${process.pid}-${Date.now()}`
  try {
    const storage = kernel.services.ports.get('storage')
    const probe = Buffer.from('mediactl doctor probe')
    await storage.write(key, Readable.from([probe]))
    const chunks: Buffer[] = []
    for await (const chunk of await storage.read(key)) chunks.push(chunk as Buffer)
    await storage.delete(key)
    if (!Buffer.concat(chunks).equals(probe))
      throw new Error('the probe object read back differs from what was written')
    return { name: 'backend', ok: true, detail: `${backend} writes, reads and deletes` }
  } catch (error) {
    return {
      name: 'backend',
      ok: false,
      detail: `${backend}: ${(error as Error).message}`,
      fix: `check the "${backend}" section of the config (docs/configuration.md) and that the store is reachable`,
    }
  }
}

/**
 * The flavor names videos and sounds get (encoder-ffmpeg's ladder): clients of the original
 * service look for flavors by name, so the operator sees which names are in use.
 */
function flavorCheck(config: Config): Check[] {
  if (!config.plugins.includes('encoder-ffmpeg')) return []
  const encoder: EncoderConfig = pluginConfig(config, 'encoder-ffmpeg', encoderConfigSchema)
  const video = encoder.video.ladder.map((rung) => `${rung.name} (${rung.width}x${rung.height})`).join(', ')
  const audio = encoder.audio.flavors.map((flavor) => flavor.name).join(', ')
  return [
    {
      name: 'flavors',
      ok: true,
      detail: `video ${video}, ladder ${encoder.video.ladder_preset}; audio ${audio}`,
    },
  ]
}

/** Checks config, database, migrations, flavor names, instance files, storage dir and ffmpeg. */
export async function doctor(options: LoadConfigOptions = {}): Promise<Check[]> {
  const checks: Check[] = []
  let config: Config
  try {
    config = loadConfig(options).config
    checks.push({ name: 'config', ok: true, detail: 'valid' })
  } catch (error) {
    checks.push({
      name: 'config',
      ok: false,
      detail: (error as Error).message,
      fix: CONFIG_FIX,
    })
    return checks
  }

  const target = databaseTarget(config)
  const where = target.dialect === 'sqlite' ? target.location : redactUrl(target.location)
  try {
    await withKernel(options, async (kernel) => {
      await kernel.orm.em.getConnection().execute('select 1')
      checks.push({ name: 'database', ok: true, detail: `${target.dialect} at ${where}` })
      const pending = await kernel.pendingMigrations()
      checks.push(
        pending.length
          ? {
              name: 'migrations',
              ok: false,
              detail: `${pending.length} pending: ${pending.join(', ')}`,
              fix: 'run "mediactl migrate"',
            }
          : { name: 'migrations', ok: true, detail: 'all applied' },
      )
      checks.push(...flavorCheck(kernel.config))
      checks.push(await storageCheck(kernel))
    })
  } catch (error) {
    // Booting also validates the keys loadConfig leaves to the kernel (unknown keys, plugin sections).
    if (error instanceof ConfigError) {
      checks[0] = { name: 'config', ok: false, detail: error.message, fix: CONFIG_FIX }
      return checks
    }
    checks.push({
      name: 'database',
      ok: false,
      detail: `${target.dialect} at ${where}: ${(error as Error).message}`,
      fix:
        target.dialect === 'sqlite'
          ? 'check that the data dir is writable'
          : 'check that PostgreSQL runs and database.url (MEDIACTL_DATABASE_URL) is right',
    })
  }

  const paths = instancePaths(config.data_dir)
  const initialized = Boolean(readSecret(config)) && existsSync(paths.privateKey)
  checks.push(
    initialized
      ? { name: 'instance', ok: true, detail: 'secret and RSA key pair present' }
      : { name: 'instance', ok: false, detail: 'server secret or RSA key pair missing', fix: 'run "mediactl init"' },
  )

  try {
    mkdirSync(config.data_dir, { recursive: true })
    accessSync(config.data_dir, constants.W_OK)
    checks.push({ name: 'storage', ok: true, detail: `${config.data_dir} is writable` })
  } catch (error) {
    checks.push({
      name: 'storage',
      ok: false,
      detail: (error as Error).message,
      fix: `make ${config.data_dir} writable by this user, or set data_dir`,
    })
  }

  for (const name of ['ffmpeg', 'ffprobe'] as const) {
    const binary = findMediaBinary(name)
    const version = binary && binaryVersion(binary.path)
    checks.push(
      version
        ? { name, ok: true, detail: `${version} (${binary.source}: ${binary.path})` }
        : {
            name,
            ok: false,
            detail: 'not found or not runnable',
            fix: `install it ("apt-get install ffmpeg") or set ${name.toUpperCase()}_PATH`,
          },
    )
  }
  return checks
}
