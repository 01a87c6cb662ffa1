import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError, configFilePath, envOverrides, loadConfig, pluginConfig } from '../../src/kernel/config/load.js'
import { z } from 'zod'
import { warnRetiredKeys } from '../../src/kernel/config/retired-keys.js'
import { recordingLogger } from '../helpers/log.js'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-config-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Loads with an isolated environment and working directory. */
function load(env: Record<string, string> = {}, extra: { file?: string; overrides?: Record<string, unknown> } = {}) {
  return loadConfig({ env, cwd: dir, ...extra })
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

function writeYaml(name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('loadConfig defaults', () => {
  it('gives the embedded defaults without file or environment', () => {
    const { config, file } = load()
    expect(file).toBeUndefined()
    expect(config.data_dir).toBe(join(dir, 'data'))
    expect(config.base_url).toBe('')
    expect(config.log_level).toBe('info')
    expect(config.http).toEqual({
      host: '0.0.0.0',
      port: 8080,
      processes: 0,
      body_limit: 1048576,
      max_fields: 200,
      max_list: 5000,
      shutdown_timeout: 10,
      max_header_size: 16384,
      headers_timeout: 20,
      request_timeout: 0,
      idle_timeout: 300,
      keep_alive_timeout: 5,
    })
    expect(config.database).toEqual({
      url: '',
      pool_max: 10,
      connect_timeout: 5,
      connect_wait: 60,
      acquire_timeout: 10,
      statement_timeout: 30,
      debug: false,
    })
    expect(config.auth).toEqual({ realm: 'mediactl', nonce_ttl: 300, secret: '' })
    expect(config.plugins.slice(0, 6)).toEqual(['root', 'platforms', 'identity', 'storage-fs', 'metadata', 'files'])
    expect(config.plugins).toContain('queue-inline')
    expect(config.jobs).toEqual({
      concurrency: 0,
      max_attempts: 3,
      backoff: 10,
      time_limit: 3600,
      lease: 30,
      reconcile_interval: 60,
      keep_finished: 604800,
      shutdown: 'requeue',
    })
    expect(config.api).toEqual({ timestamps: 'iso8601' })
    expect(config.redis_connect_wait).toBe(60)
    expect(config['storage-fs']).toEqual({ root: '' })
  })

  it('resolves data_dir against the working directory', () => {
    expect(load({ MEDIACTL_DATA_DIR: 'var/lib' }).config.data_dir).toBe(join(dir, 'var/lib'))
    expect(load({ MEDIACTL_DATA_DIR: '/srv/mediactl' }).config.data_dir).toBe('/srv/mediactl')
  })
})

describe('loadConfig file', () => {
  it('resolves a relative data_dir in a config file against the file, not the working directory', () => {
    const file = writeYaml('sub.yaml', 'data_dir: ./here\n')
    expect(loadConfig({ env: {}, cwd: '/', file }).config.data_dir).toBe(join(dir, 'here'))
  })

  it('merges ./mediactl.yaml when it exists, deeply', () => {
    writeYaml('mediactl.yaml', 'http:\n  port: 9000\nauth:\n  realm: studio\n')
    const { config, file } = load()
    expect(file).toBe(join(dir, 'mediactl.yaml'))
    expect(config.http.port).toBe(9000)
    expect(config.http.body_limit).toBe(1048576)
    expect(config.http.host).toBe('0.0.0.0')
    expect(config.auth).toEqual({ realm: 'studio', nonce_ttl: 300, secret: '' })
  })

  it('reads an explicit file, relative to the working directory', () => {
    writeYaml('custom.yaml', 'log_level: debug\nplugins: [root, platforms]\n')
    const { config, file } = load({}, { file: 'custom.yaml' })
    expect(file).toBe(join(dir, 'custom.yaml'))
    expect(config.log_level).toBe('debug')
    expect(config.plugins).toEqual(['root', 'platforms'])
  })

  it('reads the file named by MEDIACTL_CONFIG', () => {
    writeYaml('env.yaml', 'http:\n  max_list: 7\n')
    const { config, file } = load({ MEDIACTL_CONFIG: 'env.yaml' })
    expect(file).toBe(join(dir, 'env.yaml'))
    expect(config.http.max_list).toBe(7)
  })

  it('prefers the explicit file over MEDIACTL_CONFIG', () => {
    writeYaml('a.yaml', 'http:\n  max_list: 1\n')
    writeYaml('b.yaml', 'http:\n  max_list: 2\n')
    expect(load({ MEDIACTL_CONFIG: 'a.yaml' }, { file: 'b.yaml' }).config.http.max_list).toBe(2)
    expect(configFilePath({ env: { MEDIACTL_CONFIG: 'a.yaml' }, cwd: dir })).toEqual({
      path: join(dir, 'a.yaml'),
      explicit: true,
    })
    expect(configFilePath({ env: {}, cwd: dir })).toEqual({ path: join(dir, 'mediactl.yaml'), explicit: false })
  })

  it('fails for an explicit file that does not exist, naming it', () => {
    const error = configError(() => load({}, { file: 'missing.yaml' }))
    expect(error.message).toContain(join(dir, 'missing.yaml'))
    expect(error.message).toContain('does not exist')
  })

  it('fails for a MEDIACTL_CONFIG file that does not exist', () => {
    const error = configError(() => load({ MEDIACTL_CONFIG: 'nowhere.yaml' }))
    expect(error.message).toContain(join(dir, 'nowhere.yaml'))
    expect(error.message).toContain('does not exist')
  })

  it('accepts an empty file', () => {
    writeYaml('mediactl.yaml', '')
    expect(load().config.http.port).toBe(8080)
  })

  it('fails for a file that is not YAML, naming it', () => {
    const file = writeYaml('bad.yaml', 'http: [unclosed\n')
    const error = configError(() => load({}, { file }))
    expect(error.message).toContain('cannot read config file')
    expect(error.message).toContain(file)
  })

  it('fails for a file that is not a mapping', () => {
    const file = writeYaml('list.yaml', '- a\n- b\n')
    const error = configError(() => load({}, { file }))
    expect(error.message).toContain('must be a YAML mapping')
  })

  it('names the file and the key of an invalid value', () => {
    const file = writeYaml('mediactl.yaml', 'http:\n  port: 70000\n')
    const error = configError(() => load())
    expect(error.message).toContain(file)
    expect(error.message).toMatch(/http\.port: .*65535/)
  })

  it('refuses an unknown key in a kernel section, naming it', () => {
    writeYaml('mediactl.yaml', 'http:\n  prot: 1\n')
    const error = configError(() => load())
    expect(error.message).toContain('http')
    expect(error.message).toContain('unknown key "prot" (did you mean "port"?)')
  })
})

describe('loadConfig environment', () => {
  it('maps the documented aliases', () => {
    const { config } = load({
      MEDIACTL_DATA_DIR: '/data',
      MEDIACTL_BASE_URL: 'https://media.example.org/api',
      MEDIACTL_LOG_LEVEL: 'warn',
      MEDIACTL_HOST: '127.0.0.1',
      MEDIACTL_PORT: '8181',
      MEDIACTL_DATABASE_URL: 'postgres://u:p@db:5432/mediactl',
      MEDIACTL_SECRET: 's3cret-value',
      MEDIACTL_PLUGINS: 'root, platforms ,identity',
    })
    expect(config.data_dir).toBe('/data')
    expect(config.base_url).toBe('https://media.example.org/api')
    expect(config.log_level).toBe('warn')
    expect(config.http.host).toBe('127.0.0.1')
    expect(config.http.port).toBe(8181)
    expect(config.database.url).toBe('postgres://u:p@db:5432/mediactl')
    expect(config.auth.secret).toBe('s3cret-value')
    expect(config.plugins).toEqual(['root', 'platforms', 'identity'])
  })

  it('maps MEDIACTL_SECTION__KEY to nested keys, typed like YAML', () => {
    const { config } = load({
      MEDIACTL_HTTP__BODY_LIMIT: '2048',
      MEDIACTL_HTTP__MAX_FIELDS: '12',
      MEDIACTL_AUTH__NONCE_TTL: '60',
      MEDIACTL_AUTH__REALM: 'Studio',
      MEDIACTL_DATABASE__DEBUG: 'true',
      MEDIACTL_HTTP__SHUTDOWN_TIMEOUT: '0.5',
    })
    expect(config.http.body_limit).toBe(2048)
    expect(config.http.max_fields).toBe(12)
    expect(config.auth.nonce_ttl).toBe(60)
    expect(config.auth.realm).toBe('Studio')
    expect(config.database.debug).toBe(true)
    expect(config.http.shutdown_timeout).toBe(0.5)
    expect(config.http.port).toBe(8080)
  })

  it('maps nested keys of plugin sections, reading `_` in a plugin name as `-`', () => {
    expect(envOverrides({ MEDIACTL_STORAGE_FS__ROOT: '/x', MEDIACTL_A__B__C: '3' })).toEqual({
      'storage-fs': { root: '/x' },
      a: { b: { c: 3 } },
    })
    expect(envOverrides({ MEDIACTL_STATE_REDIS__PREFIX: 'p:', MEDIACTL_STORAGE_S3__FORCE_PATH_STYLE: 'true' })).toEqual(
      {
        'state-redis': { prefix: 'p:' },
        'storage-s3': { force_path_style: true },
      },
    )
  })

  it('keeps the underscores of kernel sections and of names without a nested key', () => {
    expect(envOverrides({ MEDIACTL_REDIS_URL__X: '1', MEDIACTL_SOME_NAME: 'v', MEDIACTL_HTTP__MAX_LIST: '4' })).toEqual(
      {
        redis_url: { x: 1 },
        some_name: 'v',
        http: { max_list: 4 },
      },
    )
  })

  it('merges a plugin variable into the section the config file names with `-`', () => {
    writeYaml('mediactl.yaml', 'storage-s3:\n  bucket: from-file\n  region: eu-west-3\n')
    const { config } = load({ MEDIACTL_STORAGE_S3__BUCKET: 'from-env' })
    expect(config['storage-s3']).toEqual({ bucket: 'from-env', region: 'eu-west-3' })
    expect(config).not.toHaveProperty('storage_s3')
  })

  it('ignores MEDIACTL_CONFIG, MEDIACTL_TEST_* and other variables', () => {
    expect(
      envOverrides({
        MEDIACTL_CONFIG: 'x.yaml',
        MEDIACTL_TEST_DATABASE_URL: 'postgres://x',
        PATH: '/bin',
        HOME: '/root',
      }),
    ).toEqual({})
  })

  it('keeps string keys as strings even when they look like numbers or YAML', () => {
    const { config } = load({
      MEDIACTL_SECRET: '123456',
      MEDIACTL_AUTH__REALM: '2024',
      MEDIACTL_DATABASE_URL: 'postgres://u:123@h/db',
      MEDIACTL_BASE_URL: 'http://h:8080',
    })
    expect(config.auth.secret).toBe('123456')
    expect(config.auth.realm).toBe('2024')
    expect(config.database.url).toBe('postgres://u:123@h/db')
    expect(config.base_url).toBe('http://h:8080')
  })

  it('keeps as text any value YAML would read as a mapping or null', () => {
    expect(
      envOverrides({
        MEDIACTL_STATE_REDIS__PREFIX: 'app:',
        MEDIACTL_A__B: 'a: b',
        MEDIACTL_A__C: 'null',
        MEDIACTL_A__D: '~',
      }),
    ).toEqual({ 'state-redis': { prefix: 'app:' }, a: { b: 'a: b', c: 'null', d: '~' } })
    expect(envOverrides({ MEDIACTL_A__B: '[1, x]', MEDIACTL_A__D: '0123', MEDIACTL_A__E: 'a # b' })).toEqual({
      a: { b: [1, 'x'], d: 123, e: 'a # b' },
    })
  })

  it('reads a quoted value as the text inside the quotes, so digits can reach a plugin string key', () => {
    expect(
      envOverrides({ MEDIACTL_STORAGE_S3__SECRET_ACCESS_KEY: '"0123"', MEDIACTL_A__B: "'true'", MEDIACTL_A__C: '"x' }),
    ).toEqual({ 'storage-s3': { secret_access_key: '0123' }, a: { b: 'true', c: '"x' } })
  })

  it('keeps a secret that YAML would read as something else', () => {
    for (const secret of ['true', 'null', '[abc]', 'a: b', '1e5', '*ref', '0x1F']) {
      expect(load({ MEDIACTL_SECRET: secret }).config.auth.secret).toBe(secret)
    }
  })

  it('lets the environment win over the file, and overrides over both', () => {
    writeYaml('mediactl.yaml', 'http:\n  port: 9000\n  max_list: 9\n')
    const { config } = load(
      { MEDIACTL_PORT: '9100', MEDIACTL_HTTP__MAX_LIST: '10' },
      { overrides: { http: { port: 9200 } } },
    )
    expect(config.http.port).toBe(9200)
    expect(config.http.max_list).toBe(10)
    expect(config.http.body_limit).toBe(1048576)
  })

  it('reads process.env when no environment is given', () => {
    const saved = process.env.MEDIACTL_HTTP__MAX_LIST
    process.env.MEDIACTL_HTTP__MAX_LIST = '33'
    try {
      expect(loadConfig({ cwd: dir }).config.http.max_list).toBe(33)
    } finally {
      if (saved === undefined) delete process.env.MEDIACTL_HTTP__MAX_LIST
      else process.env.MEDIACTL_HTTP__MAX_LIST = saved
    }
  })
})

describe('loadConfig validation', () => {
  it('refuses a realm that could not be quoted in the Digest challenge', () => {
    const error = configError(() => load({ MEDIACTL_AUTH__REALM: 'my "realm"' }))
    expect(error.message).toMatch(/auth\.realm: text without double quotes or backslashes/)
  })

  it('MEDIACTL_DEBUG is not a config key', () => {
    expect(load({ MEDIACTL_DEBUG: '1' }).config.log_level).toBe('info')
  })

  it('MEDIACTL_PORT=abc names http.port and the expected type', () => {
    const error = configError(() => load({ MEDIACTL_PORT: 'abc' }))
    expect(error.message).toContain('invalid configuration')
    expect(error.message).toMatch(/http\.port: Expected number, received string/)
  })

  it('names the bounds of an out-of-range number', () => {
    const error = configError(() => load({ MEDIACTL_PORT: '-1' }))
    expect(error.message).toMatch(/http\.port: .*0/)
  })

  it('names every invalid key at once', () => {
    const error = configError(() =>
      load({
        MEDIACTL_HTTP__BODY_LIMIT: '0',
        MEDIACTL_LOG_LEVEL: 'loud',
        MEDIACTL_AUTH__NONCE_TTL: '1.5',
        MEDIACTL_DATABASE_URL: 'mysql://x',
        MEDIACTL_BASE_URL: 'not a url',
      }),
    )
    expect(error.message).toMatch(/http\.body_limit: Number must be greater than 0/)
    expect(error.message).toMatch(
      /log_level: .*'trace' \| 'debug' \| 'info' \| 'warn' \| 'error' \| 'fatal' \| 'silent'/,
    )
    expect(error.message).toMatch(/auth\.nonce_ttl: Expected integer/)
    expect(error.message).toMatch(/database\.url: .*sqlite:\/\/ or postgres:\/\//)
    expect(error.message).toMatch(/base_url: /)
  })

  it('refuses an unknown nested key given in the environment', () => {
    const error = configError(() => load({ MEDIACTL_HTTP__BOGUS: '1' }))
    expect(error.message).toMatch(/http: unknown key "bogus"$/m)
  })

  it('refuses an empty plugin list', () => {
    const error = configError(() => load({}, { overrides: { plugins: [] } }))
    expect(error.message).toMatch(/plugins \(the command line\): expected a non-empty list/)
  })

  it('accepts sqlite:// and postgresql:// database URLs', () => {
    expect(load({ MEDIACTL_DATABASE_URL: 'sqlite:///tmp/x.sqlite' }).config.database.url).toBe('sqlite:///tmp/x.sqlite')
    expect(load({ MEDIACTL_DATABASE_URL: 'postgresql://h/db' }).config.database.url).toBe('postgresql://h/db')
  })
})

describe('pluginConfig', () => {
  const schema = z.object({ root: z.string().default('/srv'), level: z.number().int().min(1) }).strict()

  it('validates the slice named after the plugin', () => {
    const { config } = load({ MEDIACTL_MEDIA_STORE__LEVEL: '3' })
    expect(pluginConfig(config, 'media-store', schema)).toEqual({ root: '/srv', level: 3 })
  })

  it('names a bad key under the plugin key', () => {
    const { config } = load({ MEDIACTL_MEDIA_STORE__LEVEL: '0' })
    const error = configError(() => pluginConfig(config, 'media-store', schema))
    expect(error.message).toMatch(/media-store\.level: Number must be greater than or equal to 1/)
  })

  it('validates an absent slice as empty', () => {
    const { config } = load()
    const error = configError(() => pluginConfig(config, 'media-store', schema))
    expect(error.message).toMatch(/media-store\.level: Required/)
  })
})

describe('retired keys', () => {
  it('http.answer_cache_mb still loads (file or environment), ignored with a warning saying why', () => {
    writeFileSync(join(dir, 'mediactl.yaml'), 'http:\n  answer_cache_mb: 64\n')
    const { config } = load()
    expect(config.http.answer_cache_mb).toBe(64)
    const { logger, lines } = recordingLogger()
    warnRetiredKeys(config, logger)
    expect(lines.map((line) => line.msg)).toEqual([
      'http.answer_cache_mb is ignored: the whole-answer cache was removed (docs/decisions/0254); remove the key from the configuration',
    ])
    expect(load({ MEDIACTL_HTTP__ANSWER_CACHE_MB: '0' }).config.http.answer_cache_mb).toBe(0)
    // Not set: no warning; a bad value is still refused.
    rmSync(join(dir, 'mediactl.yaml'))
    const quiet = recordingLogger()
    warnRetiredKeys(load().config, quiet.logger)
    expect(quiet.lines).toEqual([])
    expect(() => load({}, { overrides: { http: { answer_cache_mb: -1 } } })).toThrow(/http\.answer_cache_mb/)
  })
})
