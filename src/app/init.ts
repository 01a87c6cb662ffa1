import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, relative as relativePath } from 'node:path'
import {
  type LoadConfigOptions,
  configFilePath,
  createDatabase,
  databaseTarget,
  ensureKeyPair,
  ensureSecret,
  instancePaths,
  loadConfig,
  redactUrl,
} from '../kernel/index.js'
import { INSTALLATION } from '../catalog.js'
import { checkConfig, withKernel } from './boot.js'
import { configTemplate } from './config-template.js'

export interface InitOptions extends LoadConfigOptions {
  adminUsername: string
  adminEmail: string
  adminPassword?: string
  /** Name of the first platform, created when there is none. */
  platformName: string
  /** Create the PostgreSQL database when it does not exist (`--create-database`); never done otherwise. */
  createDatabase?: boolean
  /** Progress lines for the operator. */
  progress?: (message: string) => void
}

export interface InitResult {
  /** False when the instance was already initialized and nothing changed. */
  changed: boolean
  /** What was done, step by step. */
  steps: string[]
  dataDir: string
  configFile: string
  url: string
  publicKeyFile: string
  /** The first administrator, when created by this run. */
  admin?: { username: string; apiKey: string; platform: string; signInLink?: { url: string; expiresAt: string } }
}

/**
 * Initializes an instance, each step only when needed: data dir, config file, server
 * secret, RSA key pair, migrations, seeds, first platform and installation administrator.
 */
export async function initInstance(options: InitOptions): Promise<InitResult> {
  const say = options.progress ?? (() => undefined)
  const steps: string[] = []
  const step = (message: string): void => {
    steps.push(message)
    say(message)
  }
  const file = configFilePath(options).path
  const written = existsSync(file)
  const defaults: LoadConfigOptions = {
    ...options,
    file: undefined,
    env: { ...(options.env ?? process.env), MEDIACTL_CONFIG: '' },
  }
  // Validated whole before anything is written: a typo must not leave a secret and keys behind.
  await checkConfig(written ? { ...options, file } : defaults)
  if (!written) {
    const { config } = loadConfig(defaults)
    mkdirSync(dirname(file), { recursive: true })
    const relative = relativePath(dirname(file), config.data_dir)
    writeFileSync(
      file,
      configTemplate(relative.startsWith('..') || isAbsolute(relative) ? config.data_dir : `./${relative}`),
    )
    step(`wrote config file ${file}`)
  }
  const { config } = loadConfig({ ...options, file })
  if (!existsSync(config.data_dir)) {
    mkdirSync(config.data_dir, { recursive: true })
    step(`created data dir ${config.data_dir}`)
  }
  if (!config.auth.secret && ensureSecret(config.data_dir)) step('generated the server secret')
  if (ensureKeyPair(config.data_dir)) step('generated the RSA key pair for password checks')

  const target = databaseTarget(config)
  if (options.createDatabase && target.dialect === 'postgresql' && (await createDatabase(target.location))) {
    step(`created the database ${redactUrl(target.location)}`)
  }
  return withKernel({ ...options, file, pending: 'allow' }, async (kernel) => {
    // Started beside its database (compose, systemd): it waits for it, and starts over if lost meanwhile.
    const applied = await kernel.whileStarting(() => kernel.migrator.up((m) => say(`migrating: ${m.name}`)))
    if (applied.length) step(`applied ${applied.length} migration(s)`)
    await kernel.seed()

    const made = await INSTALLATION.ensureAdmin(kernel.em(), kernel.emit, {
      platformName: options.platformName,
      username: options.adminUsername,
      email: options.adminEmail,
      password: options.adminPassword,
      realm: config.auth.realm,
    })
    if (made.madePlatform) step(`created the platform "${made.madePlatform.name}" (${made.madePlatform.slug})`)
    if (made.admin) step(`created the installation administrator "${made.admin.username}"`)
    const admin: InitResult['admin'] = made.admin
    // With the console, the administrator also gets a one-time link where they choose a password.
    if (admin && kernel.plugins.some((plugin) => plugin.name === 'console')) {
      const link = await INSTALLATION.signInLink(kernel, admin.username)
      admin.signInLink = { url: link.url, expiresAt: link.expires_at }
    }
    return {
      changed: steps.length > 0,
      steps,
      dataDir: config.data_dir,
      configFile: file,
      url: kernel.services.links.url().replace(/\/$/, ''),
      publicKeyFile: instancePaths(config.data_dir).publicKey,
      admin,
    }
  })
}
