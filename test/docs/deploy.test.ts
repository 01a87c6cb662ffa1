import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { afterAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { COMMANDS } from '../../src/cli/commands.js'
import { envOverrides, loadConfig } from '../../src/kernel/config/load.js'
import { kernelConfigSchema } from '../../src/kernel/config/schema.js'

/**
 * Keeps the deployment files honest without a container builder or systemd (scripts/check-deploy.sh
 * checks that they parse): the commands they run exist, every MEDIACTL_* variable they name is a
 * configuration key, the compose file's configuration loads, and the image runs unprivileged.
 */

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

const UNIT_DIR = 'deploy/systemd'
const UNITS = readdirSync(new URL(`../../${UNIT_DIR}`, import.meta.url)).filter((name) => name.endsWith('.service'))

/** A unit file's directives, by section; a directive given twice keeps every value. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>()
  let current: Map<string, string[]> | undefined
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header) {
      current = new Map()
      sections.set(header[1]!, current)
      continue
    }
    const eq = line.indexOf('=')
    if (!current || eq < 0) throw new Error(`not a directive: ${line}`)
    const key = line.slice(0, eq).trim()
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()])
  }
  return sections
}

function unit(name: string): Map<string, string[]> {
  const service = parseUnit(read(`${UNIT_DIR}/${name}`)).get('Service')
  if (!service) throw new Error(`${name} has no [Service] section`)
  return service
}

/** The one value of a directive. */
function directive(service: Map<string, string[]>, key: string): string | undefined {
  const values = service.get(key)
  return values?.at(-1)
}

/** The mediactl command a command line runs (`user create` is `user:create`), after bin/run.js or mediactl. */
function mediactlCommand(argv: string[]): string {
  const at = argv.findIndex((arg) => arg.endsWith('/bin/run.js') || arg === 'mediactl' || arg.endsWith('/mediactl'))
  if (at < 0) throw new Error(`not a mediactl command line: ${argv.join(' ')}`)
  const words = []
  for (const arg of argv.slice(at + 1)) {
    if (arg.startsWith('-')) break
    words.push(arg)
  }
  return words.join(':')
}

/** Seconds of a systemd or compose duration: `90`, `90s`, `1min 30s`, `2m`. */
function seconds(value: string): number {
  let total = 0
  for (const [, n, unitName] of value.matchAll(/(\d+(?:\.\d+)?)\s*(min|ms|m|s|h)?/g)) {
    const factor = { ms: 0.001, s: 1, m: 60, min: 60, h: 3600 }[unitName ?? 's'] ?? 1
    total += Number(n) * factor
  }
  return total
}

const shutdownTimeouts = [
  (parseYaml(read('config/default.yaml')) as { http: { shutdown_timeout: number } }).http.shutdown_timeout,
  (parseYaml(read('config/production.example.yaml')) as { http: { shutdown_timeout: number } }).http.shutdown_timeout,
]

describe('systemd units', () => {
  it('are the serve unit, the worker template and the migrations', () => {
    expect(UNITS).toEqual(
      expect.arrayContaining(['mediactl-serve.service', 'mediactl-worker@.service', 'mediactl-migrate.service']),
    )
  })

  it.each([
    ['mediactl-serve.service', 'serve'],
    ['mediactl-worker@.service', 'worker'],
    ['mediactl-migrate.service', 'migrate'],
  ])('%s runs "mediactl %s", a real command', (name, command) => {
    const exec = unit(name).get('ExecStart') ?? []
    expect(exec).toHaveLength(1)
    const ran = mediactlCommand(exec[0]!.split(/\s+/))
    expect(ran).toBe(command)
    expect(Object.keys(COMMANDS)).toContain(ran)
  })

  it('every command line of every unit names a real command', () => {
    for (const name of UNITS) {
      for (const [key, values] of unit(name)) {
        if (!key.startsWith('Exec')) continue
        for (const value of values)
          expect(Object.keys(COMMANDS), `${name} ${key}`).toContain(mediactlCommand(value.split(/\s+/)))
      }
    }
  })

  it.each(UNITS)('%s runs as mediactl with its config file, env file and state directory, hardened', (name) => {
    const service = unit(name)
    expect(directive(service, 'User')).toBe('mediactl')
    expect(service.get('Environment')).toContain('MEDIACTL_CONFIG=/etc/mediactl/mediactl.yaml')
    expect(directive(service, 'EnvironmentFile')).toMatch(/^-?\/etc\/mediactl\//)
    expect(directive(service, 'StateDirectory')).toBe('mediactl')
    expect(directive(service, 'ReadWritePaths')).toBe('/var/lib/mediactl')
    const hardening: Record<string, string> = {
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectControlGroups: 'yes',
      RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
      RestrictNamespaces: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
      CapabilityBoundingSet: '',
    }
    for (const [key, value] of Object.entries(hardening)) expect(directive(service, key), key).toBe(value)
    // V8's JIT needs writable and executable memory.
    expect(service.has('MemoryDenyWriteExecute')).toBe(false)
  })

  it.each(['mediactl-serve.service', 'mediactl-worker@.service'])(
    '%s restarts on failure and gives the graceful stop more than twice http.shutdown_timeout',
    (name) => {
      const service = unit(name)
      expect(directive(service, 'Restart')).toBe('on-failure')
      expect(seconds(directive(service, 'RestartSec') ?? '0')).toBeGreaterThan(0)
      expect(directive(service, 'KillSignal')).toBe('SIGTERM')
      const stop = seconds(directive(service, 'TimeoutStopSec') ?? '0')
      for (const timeout of shutdownTimeouts) expect(stop).toBeGreaterThan(2 * timeout)
    },
  )
})

const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as {
  services: Record<
    string,
    {
      command?: string[]
      environment?: Record<string, string | number>
      healthcheck?: { test?: string[]; disable?: boolean }
      depends_on?: Record<string, { condition: string }>
      ports?: string[]
      hostname?: string
      stop_grace_period?: string
    }
  >
}

/** A compose value with its ${VAR:-default} and ${VAR:?error} filled in as `docker compose` would for a check. */
function interpolate(value: string | number): string {
  return String(value).replace(
    /\$\{(\w+)(?::?([-?])([^}]*))?\}/g,
    (_, _name, kind: string | undefined, rest: string) => (kind === '-' ? rest : 'check'),
  )
}

function serviceEnv(name: string): Record<string, string> {
  const env = compose.services[name]?.environment ?? {}
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, interpolate(value)]))
}

/** The URL a health check asks (`fetch('http://...')` in a node -e command). */
function healthUrl(test: string[] | undefined): URL {
  const match = /fetch\('([^']+)'/.exec((test ?? []).join(' '))
  if (!match) throw new Error(`no fetch in the health check: ${test?.join(' ')}`)
  return new URL(match[1]!)
}

describe('compose file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-deploy-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('has PostgreSQL, Redis, the migrations, serve and worker', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrate', 'serve', 'worker']),
    )
  })

  it('runs real mediactl commands', () => {
    for (const name of ['migrate', 'serve', 'worker']) {
      const command = compose.services[name]?.command ?? []
      expect(Object.keys(COMMANDS), name).toContain(mediactlCommand(['mediactl', ...command.map(interpolate)]))
    }
    expect(compose.services.serve?.command).toEqual(['serve'])
    expect(compose.services.worker?.command).toEqual(['worker'])
  })

  it('starts serve and worker after the migrations completed', () => {
    for (const name of ['serve', 'worker']) {
      expect(compose.services[name]?.depends_on?.migrate?.condition).toBe('service_completed_successfully')
    }
  })

  it('checks serve on /ready at its port, and the worker on its metrics listener', () => {
    const ready = healthUrl(compose.services.serve?.healthcheck?.test)
    expect(ready.pathname).toBe('/ready')
    const serve = loadConfig({ env: serviceEnv('serve'), cwd: dir }).config
    expect(Number(ready.port)).toBe(serve.http.port)
    expect(compose.services.serve?.ports?.some((port) => port.endsWith(`:${serve.http.port}`))).toBe(true)
    const metrics = healthUrl(compose.services.worker?.healthcheck?.test)
    const worker = loadConfig({ env: serviceEnv('worker'), cwd: dir }).config
    expect(Number(metrics.port)).toBe(worker.metrics.port)
    expect(metrics.hostname).toBe(worker.metrics.host)
  })

  it('configures serve and worker with PostgreSQL, queue-bullmq and state-redis', () => {
    for (const name of ['migrate', 'serve', 'worker']) {
      const { config } = loadConfig({ env: serviceEnv(name), cwd: dir })
      expect(config.database.url, name).toMatch(/^postgres:\/\//)
      expect(config.redis_url, name).toMatch(/^redis:\/\//)
      expect(config.auth.secret, name).not.toBe('')
      expect(config.plugins, name).toEqual(expect.arrayContaining(['queue-bullmq', 'state-redis']))
      expect(config.plugins, name).not.toContain('queue-inline')
    }
  })

  it('lets each container keep its own host name (job leases) and time to stop gracefully', () => {
    for (const name of ['migrate', 'serve', 'worker']) {
      expect(compose.services[name]?.hostname, name).toBeUndefined()
    }
    for (const name of ['serve', 'worker']) {
      const grace = seconds(compose.services[name]?.stop_grace_period ?? '10s')
      expect(grace, name).toBeGreaterThan(2 * shutdownTimeouts[0]!)
    }
  })
})

describe('container image', () => {
  const dockerfile = read('deploy/container/Dockerfile').replace(/\\\n/g, ' ')
  const lines = dockerfile.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'))
  const stages = lines.filter((line) => /^FROM /i.test(line))
  const runtime = lines.slice(lines.findLastIndex((line) => /^FROM /i.test(line)))

  it('builds in stages on a Debian-based Node 20 image', () => {
    expect(stages.length).toBeGreaterThan(1)
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m)
    expect(lines.some((line) => /RUN .*npm ci --ignore-scripts/.test(line))).toBe(true)
    expect(lines.some((line) => /RUN npm run build/.test(line))).toBe(true)
    expect(lines.some((line) => /npm ci --omit=dev --ignore-scripts.*npm rebuild better-sqlite3/.test(line))).toBe(true)
  })

  it('installs ffmpeg from the distribution and runs as a user other than root', () => {
    expect(runtime.some((line) => /^RUN .*apt-get install .*\bffmpeg\b/.test(line))).toBe(true)
    const users = runtime.filter((line) => /^USER /.test(line)).map((line) => line.slice(5).trim())
    expect(users.length).toBeGreaterThan(0)
    expect(['root', '0']).not.toContain(users.at(-1)!.split(':')[0])
  })

  it('keeps its data in a volume, serves 8080, checks /health, and runs mediactl serve', () => {
    expect(runtime).toContain('VOLUME /var/lib/mediactl')
    expect(runtime).toContain('EXPOSE 8080')
    const healthcheck = runtime.find((line) => /^HEALTHCHECK /.test(line))
    expect(healthcheck).toMatch(/fetch\(.*\/health'/)
    expect(runtime).toContain('ENTRYPOINT ["mediactl"]')
    const cmd = JSON.parse(runtime.find((line) => /^CMD /.test(line))!.slice(4)) as string[]
    expect(Object.keys(COMMANDS)).toContain(mediactlCommand(['mediactl', ...cmd]))
  })

  it('copies only what .dockerignore lets into the build context', () => {
    const ignore = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
    expect(ignore[0]).toBe('*')
    const allowed = ignore.filter((line) => line.startsWith('!')).map((line) => line.slice(1))
    const sources = lines
      .filter((line) => /^COPY /.test(line) && !/--from=/.test(line))
      .flatMap((line) => line.split(/\s+/).slice(1, -1))
    expect(sources.length).toBeGreaterThan(0)
    for (const source of sources) expect(allowed, source).toContain(source)
  })
})

/** The schema of the config key at `path` (through optional, default, effects), or undefined when no such key. */
async function schemaAt(path: string[]): Promise<z.ZodTypeAny | undefined> {
  const [top = '', ...rest] = path
  let node: z.ZodTypeAny | undefined = (kernelConfigSchema.shape as Record<string, z.ZodTypeAny>)[top]
  if (!node && CATALOG.names.includes(top)) {
    const [plugin] = await CATALOG.load([top])
    node = plugin?.config as z.ZodTypeAny | undefined
  }
  for (const key of rest) {
    while (node instanceof z.ZodOptional || node instanceof z.ZodNullable || node instanceof z.ZodDefault) {
      node = node._def.innerType as z.ZodTypeAny
    }
    while (node instanceof z.ZodEffects) node = node._def.schema as z.ZodTypeAny
    node = node instanceof z.ZodObject ? (node.shape as Record<string, z.ZodTypeAny>)[key] : undefined
  }
  return node
}

/** The config key a MEDIACTL_* variable sets, as mediactl reads it. */
function configPath(name: string): string[] {
  let node: unknown = envOverrides({ [name]: 'x' })
  const path: string[] = []
  while (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    const keys = Object.keys(node)
    if (keys.length !== 1) break
    path.push(keys[0]!)
    node = (node as Record<string, unknown>)[keys[0]!]
  }
  return path
}

/** Variables mediactl reads that are not configuration keys (docs/configuration.md). */
const NOT_CONFIG = new Set(['MEDIACTL_CONFIG', 'MEDIACTL_DEBUG'])

describe('MEDIACTL_* variables in the deployment files', () => {
  const files = [
    ...UNITS.map((name) => `${UNIT_DIR}/${name}`),
    'deploy/compose.yaml',
    'deploy/container/Dockerfile',
    'docs/deployment.md',
  ]
  const names = new Map<string, string[]>()
  for (const file of files) {
    for (const [name] of read(file).matchAll(/\bMEDIACTL_[A-Z0-9_]*[A-Z0-9]/g)) {
      names.set(name, [...(names.get(name) ?? []), file])
    }
  }

  it('are found', () => {
    expect([...names.keys()]).toEqual(
      expect.arrayContaining(['MEDIACTL_CONFIG', 'MEDIACTL_DATABASE_URL', 'MEDIACTL_SECRET', 'MEDIACTL_QUEUE']),
    )
  })

  it.each([...names.keys()].filter((name) => !NOT_CONFIG.has(name)))('%s is a configuration key', async (name) => {
    const path = configPath(name)
    expect(path.length, `${name} (in ${names.get(name)!.join(', ')}) sets nothing`).toBeGreaterThan(0)
    const schema = await schemaAt(path)
    expect(schema, `${name} (in ${names.get(name)!.join(', ')}) sets ${path.join('.')}, not a key`).toBeDefined()
  })
})
