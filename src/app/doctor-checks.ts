import { accessSync, constants, existsSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { Readable } from 'node:stream'
import { binaryVersion, findMediaBinary } from '../shared/binaries.js'
import { type Config, type Kernel, type TranscriberPort, instancePaths, readSecret } from '../kernel/index.js'
import { INSTALLATION } from '../catalog.js'

/** `ok` passes; `warn` is worth a look but passes; `fail` makes doctor exit 1; `skip` could not run. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface Check {
  name: string
  status: CheckStatus
  /** False only for `fail` (kept for scripts written against the first doctor). */
  ok: boolean
  /** What was found. */
  detail: string
  /** What to do about it (fail, warn, skip). */
  fix?: string
}

export type Outcome = Omit<Check, 'name' | 'ok'>

export const passed = (detail: string): Outcome => ({ status: 'ok', detail })
export const failed = (detail: string, fix: string): Outcome => ({ status: 'fail', detail, fix })
export const warned = (detail: string, fix: string): Outcome => ({ status: 'warn', detail, fix })

/** The speech-to-text engine in use and its languages, or why it cannot work (its reason names the fix). */
export async function transcriberCheck(transcriber: TranscriberPort): Promise<Outcome> {
  const status = await transcriber.status()
  return status.ready
    ? passed(`${status.engine} (${status.languages.join(', ')})`)
    : failed(`${status.engine}: ${status.reason}`, 'see docs/captions.md for the engines and what each needs')
}

/** Oldest ffmpeg the encoder is tested with: Debian 12's 5.1; the npm-bundled 2018 build is 4.x. */
const MIN_FFMPEG_MAJOR = 5

/**
 * Whether a `-version` line names a build older than 5.0. Git builds (the bundled static
 * one: `version N-47683-g0e8eb07980-static ... 2000-2018`) carry no number: their copyright
 * year tells, 5.0 being of 2022.
 */
export function isOld(version: string): boolean {
  const major = /version n?(\d+)\./.exec(version)?.[1]
  if (major !== undefined) return Number(major) < MIN_FFMPEG_MAJOR
  const year = /Copyright \(c\) \d{4}-(\d{4})/.exec(version)?.[1]
  return year !== undefined && Number(year) < 2022
}

/** The ffmpeg or ffprobe in use, its version and where it came from; below 5.0 warns. */
export function mediaBinaryCheck(name: 'ffmpeg' | 'ffprobe'): Outcome {
  const binary = findMediaBinary(name)
  const version = binary && binaryVersion(binary.path)
  if (!binary || !version) {
    return failed(
      'not found or not runnable',
      `install it ("apt-get install ffmpeg") or set ${name.toUpperCase()}_PATH`,
    )
  }
  const origin = { env: `${name.toUpperCase()}_PATH`, path: 'PATH', bundled: 'bundled npm copy' }[binary.source]
  const detail = `${/^\S+ version \S+/.exec(version)?.[0] ?? version} (${origin}: ${binary.path})`
  if (isOld(version)) {
    return warned(
      detail,
      `version ${MIN_FFMPEG_MAJOR}.0 or later is recommended: install the distribution's package ("apt-get install ffmpeg"), found on PATH before the bundled copy`,
    )
  }
  return passed(detail)
}

/** The flavor names videos and sounds get: clients of the original service look for flavors by name. */
export async function flavorCheck(config: Config): Promise<Outcome | undefined> {
  if (!config.plugins.includes('encoder-ffmpeg')) return undefined
  return passed(await INSTALLATION.flavors(config))
}

/** The public base URL: every href clients receive starts with it. */
export function baseUrlCheck(config: Config): Outcome {
  if (!config.base_url) {
    return warned(
      `empty: links name http://<http.host>:${config.http.port}`,
      'set base_url (MEDIACTL_BASE_URL) to the URL clients reach, https://media.example.org behind a reverse proxy',
    )
  }
  const url = new URL(config.base_url)
  if (!/^https?:$/.test(url.protocol)) {
    return failed(`${config.base_url}: not http or https`, 'set base_url to an http:// or https:// URL')
  }
  if (url.search || url.hash || url.username) {
    return failed(
      `${config.base_url}: has a query, fragment or credentials`,
      'set base_url to scheme://host[:port][/prefix] only',
    )
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  if (url.protocol === 'http:' && !local) {
    return warned(
      `${config.base_url}: plain http`,
      'serve clients over https (a reverse proxy terminating TLS) and set base_url to it',
    )
  }
  return passed(config.base_url)
}

/**
 * Whether a listener could bind `host`:`port` now. Taken is a warning, not a failure: the
 * usual taker is this installation's own running `mediactl serve`.
 */
export async function portCheck(host: string, port: number, settings: string): Promise<Outcome> {
  if (port === 0) return passed('0: a free port is chosen at start')
  const code = await new Promise<string | undefined>((resolve) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    server.listen(port, host, () => server.close(() => resolve(undefined)))
  })
  if (code === undefined) return passed(`${host}:${port} is free`)
  if (code === 'EADDRINUSE') {
    return warned(
      `${host}:${port} is in use`,
      `fine if a mediactl serve of this installation runs; otherwise stop what listens there or change ${settings}`,
    )
  }
  if (code === 'EACCES')
    return failed(`${host}:${port} needs privileges`, `use a port of 1024 or more behind a reverse proxy (${settings})`)
  if (code === 'EADDRNOTAVAIL') return failed(`${host} is no address of this machine`, `change ${settings}`)
  return failed(`${host}:${port}: ${code}`, `check ${settings}`)
}

/** The server secret and RSA key pair `mediactl init` writes. */
export function instanceCheck(config: Config): Outcome {
  const paths = instancePaths(config.data_dir)
  return Boolean(readSecret(config)) && existsSync(paths.privateKey)
    ? passed('secret and RSA key pair present')
    : failed(
        'server secret or RSA key pair missing',
        'run "mediactl init" (or set auth.secret / MEDIACTL_SECRET and copy the keys of another process)',
      )
}

export function dataDirCheck(config: Config): Outcome {
  try {
    mkdirSync(config.data_dir, { recursive: true })
    accessSync(config.data_dir, constants.W_OK)
    return passed(`${config.data_dir} is writable`)
  } catch (error) {
    return failed(
      (error as Error).message,
      `make ${config.data_dir} writable by this user, or set data_dir (MEDIACTL_DATA_DIR)`,
    )
  }
}

/** Writes, reads back and deletes a small probe object through the configured storage backend. */
export async function storageBackendCheck(kernel: Kernel): Promise<Outcome> {
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
    return passed(`${backend} writes, reads and deletes`)
  } catch (error) {
    return failed(
      `${backend}: ${(error as Error).message}`,
      backend === 'storage-s3'
        ? 'check storage-s3.endpoint, bucket (it must exist) and the credentials, and that the endpoint is reachable'
        : `check the "${backend}" section of the config (docs/configuration.md) and that the store is writable`,
    )
  }
}

/** The hint for a dependency a plugin declared for `GET /ready`, by its name. */
export function dependencyFix(name: string): string {
  if (name.startsWith('redis')) return "start Redis, or correct redis_url (MEDIACTL_REDIS_URL) or the plugin's own url"
  if (name.startsWith('storage')) return 'check the storage settings and that the store is reachable and writable'
  return 'check that this dependency runs and its settings are right'
}
