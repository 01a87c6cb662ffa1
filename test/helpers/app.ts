import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CATALOG } from '../../src/catalog.js'
import {
  Kernel,
  type Logger,
  type PluginDefinition,
  createLogger,
  ensureKeyPair,
  instancePaths,
  loadConfig,
} from '../../src/kernel/index.js'
import { createUser } from '../../plugins/identity/index.js'
import { PlatformEntity, createPlatform } from '../../plugins/platforms/index.js'
import { freshDatabase } from './database.js'
import { DigestClient } from './digest-client.js'

export interface TestApp {
  /** Base URL of the running server (real socket on 127.0.0.1). */
  url: string
  kernel: Kernel
  dataDir: string
  /** The installation administrator. */
  admin: { username: string; apiKey: string }
  /** A Digest client for the administrator. */
  client: DigestClient
  /** A Digest client for any user. */
  clientFor(username: string, apiKey: string): DigestClient
  /** Creates a user on a platform (by slug; default the first) and returns its client. */
  createUser(options: { username: string; platform?: string; admin?: boolean; email?: string }): Promise<DigestClient>
  close(): Promise<void>
}

export interface TestAppOptions {
  /** Extra configuration merged over the test defaults. */
  config?: Record<string, unknown>
  /** Extra plugins, appended to the catalog and enabled (after the configured ones). */
  plugins?: PluginDefinition[]
  /** Logger for the kernel (default: silent), for example one writing the access log to a file. */
  logger?: Logger
  /**
   * Runs the declared jobs once listening, as `mediactl serve` does with a queue backend that
   * consumes in serve (default true); false leaves starting them to the test (`kernel.startJobs`).
   */
  jobs?: boolean
}

let keyPairDir: string | undefined

/**
 * Puts an RSA key pair in the data dir: one generated per test process, copied into every app's (generating a 2048-bit
 * pair costs 0.2 to 1 s of CPU, nearly half of what booting an app costs; `mediactl init` still generates its own).
 */
function provideKeyPair(dataDir: string): void {
  if (!keyPairDir) {
    keyPairDir = mkdtempSync(join(tmpdir(), 'mediactl-keys-'))
    ensureKeyPair(keyPairDir)
    process.once('exit', () => rmSync(keyPairDir!, { recursive: true, force: true }))
  }
  const [from, to] = [instancePaths(keyPairDir), instancePaths(dataDir)]
  mkdirSync(join(dataDir, 'keys'), { recursive: true })
  copyFileSync(from.privateKey, to.privateKey)
  copyFileSync(from.publicKey, to.publicKey)
}

/**
 * Boots a real mediactl: fresh data dir, SQLite (or a fresh PostgreSQL database when
 * MEDIACTL_TEST_DATABASE_URL is set), migrations, seeds, a first platform and an
 * installation administrator, serving on a free port of 127.0.0.1.
 */
export async function startApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mediactl-test-'))
  const database = await freshDatabase()
  try {
    return await bootApp(options, dataDir, database)
  } catch (error) {
    // A boot refused on purpose (the tests of a plugin's undeclared needs) leaves no database or data dir behind.
    await database.drop()
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
}

async function bootApp(
  options: TestAppOptions,
  dataDir: string,
  database: Awaited<ReturnType<typeof freshDatabase>>,
): Promise<TestApp> {
  const overrides: Record<string, unknown> = {
    data_dir: dataDir,
    log_level: 'silent',
    http: { host: '127.0.0.1', port: 0 },
    database: { url: database.url },
    auth: { secret: 'test-secret-' + dataDir },
  }
  // Sections merge key by key, so { auth: { nonce_ttl: 1 } } keeps the test secret.
  for (const [key, value] of Object.entries(options.config ?? {})) {
    const base = overrides[key]
    const isSection = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
    overrides[key] = isSection(value) && isSection(base) ? { ...base, ...value } : value
  }
  const { config } = loadConfig({ env: {}, file: undefined, cwd: dataDir, overrides })
  provideKeyPair(dataDir)
  const extra = options.plugins ?? []
  config.plugins = [...config.plugins, ...extra.map((p) => p.name)]
  const kernel = await Kernel.boot({
    config,
    catalog: {
      names: [...CATALOG.names, ...extra.map((plugin) => plugin.name)],
      load: async (names) => [
        ...(await CATALOG.load(names)),
        ...(extra as PluginDefinition<never>[]).filter((plugin) => names.includes(plugin.name)),
      ],
    },
    logger: options.logger ?? createLogger('silent'),
  })
  await kernel.migrator.up()
  await kernel.seed()
  const em = kernel.em()
  const platform = await createPlatform(kernel.emit, em, { name: 'Default', maxUsers: 0, maxSpace: 0 })
  const { apiKey } = await createUser(em, {
    platform,
    username: 'admin',
    email: 'admin@example.org',
    admin: true,
    realm: config.auth.realm,
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  const { ports } = kernel.services
  if (options.jobs !== false && ports.has('queue') && ports.get('queue').consumesInServe) await kernel.startJobs()
  const clientFor = (username: string, key: string): DigestClient => new DigestClient(url, username, key)
  return {
    url,
    kernel,
    dataDir,
    admin: { username: 'admin', apiKey },
    client: clientFor('admin', apiKey),
    clientFor,
    async createUser({ username, platform: slug, admin, email }) {
      const fork = kernel.em()
      const target = slug ? await fork.findOneOrFail(PlatformEntity, { slug }) : platform
      const created = await createUser(fork, {
        platform: target,
        username,
        email: email ?? `${username}@example.org`,
        admin,
        realm: config.auth.realm,
      })
      return clientFor(username, created.apiKey)
    },
    async close() {
      await kernel.close()
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
