/**
 * A mediactl server for one bench scenario, in a child process of its own (the load generator and Chromium never
 * share its event loop): the compiled kernel from dist/ with the shipped plugins and settings, on a temporary data
 * dir with SQLite, the "Default" platform and an installation administrator made as `mediactl init` makes them.
 * bench/player.js and bench/console.js fork themselves as this server (`--role=server`).
 */
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')

/** A module of the build (dist/), or the way out when it is missing. */
export const dist = (path) => {
  const file = join(DIST, path)
  if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`)
  return import(pathToFileURL(file).href)
}

/**
 * Runs in the child: boots the server, listens on a free loopback port, runs its jobs when `jobs` (as `serve` does),
 * then `prepare({ kernel, em, platform, user })` (the scenario's data; what it answers joins the message), and sends
 * the parent `{ url, username, apiKey, realm, slug, ... }`. Stops on the parent's `stop` or when it goes away.
 */
export async function serveBenchKernel({ prefix, jobs = false, prepare }) {
  const { Kernel, createLogger, ensureKeyPair, loadConfig } = await dist('src/kernel/index.js')
  const { CATALOG } = await dist('src/catalog.js')
  const { createUser } = await dist('plugins/identity/index.js')
  const { createPlatform } = await dist('plugins/platforms/index.js')
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  const { config } = loadConfig({
    env: {},
    file: undefined,
    cwd: dataDir,
    overrides: {
      data_dir: dataDir,
      log_level: 'warn',
      http: { host: '127.0.0.1', port: 0 },
      database: { url: '' },
      auth: { secret: randomBytes(32).toString('hex') },
    },
  })
  ensureKeyPair(dataDir)
  const kernel = await Kernel.boot({ config, catalog: CATALOG, logger: createLogger('warn') })
  await kernel.migrator.up()
  await kernel.seed()
  const em = kernel.em()
  const platform = await createPlatform(kernel.emit, em, { name: 'Default', maxUsers: 0, maxSpace: 0 })
  const { user, apiKey } = await createUser(em, {
    platform,
    username: 'admin',
    email: 'admin@example.org',
    admin: true,
    realm: config.auth.realm,
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  if (jobs) await kernel.startJobs()
  const extra = prepare ? await prepare({ kernel, em, platform, user }) : {}
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await kernel.close()
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  process.on('message', (message) => message === 'stop' && void stop())
  process.on('disconnect', () => void stop())
  process.send({ url, username: 'admin', apiKey, realm: config.auth.realm, slug: platform.slug, ...extra })
}

/** Forks `file` as the server (`--role=server`): `ready` resolves with its message, `stop()` ends it. */
export function forkBenchServer(file) {
  const child = fork(file, ['--role=server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise))
  const ready = new Promise((resolvePromise, reject) => {
    child.once('message', resolvePromise)
    child.once('exit', (code) => reject(new Error(`the mediactl child exited early (code ${code})`)))
  })
  return {
    ready,
    async stop() {
      if (child.exitCode === null && child.connected) child.send('stop')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/**
 * `node bench/<scenario>.js` alone: runs the scenario on a server forked by `start`, prints its table, exits 1 when
 * it is not valid.
 */
export async function runAlone({ run, start, format }) {
  const say = (line) => process.stderr.write(`${line}\n`)
  const result = await run({
    dist,
    say,
    startServer: async () => {
      const server = start()
      return { server, app: await server.ready }
    },
  })
  process.stdout.write(`${format(result)}\n`)
  say(`(Node.js ${process.version}, Chromium ${result.settings?.chromiumVersion ?? '-'})`)
  process.exitCode = result.valid === false ? 1 : 0
}
