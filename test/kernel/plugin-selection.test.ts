import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/kernel/config/load.js'
import { applyBackends, foldPlugins } from '../../src/kernel/config/plugin-selection.js'
import { validatePlugins } from '../../src/kernel/config/validate.js'
import { CATALOG } from '../../src/catalog.js'
import { closest } from '../../src/shared/closest.js'
import { packageRoot } from '../../src/shared/package-root.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-plugins-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const DEFAULTS = loadConfig({ env: {}, cwd: '/' }).config.plugins

function load(yaml: string | undefined, env: Record<string, string> = {}) {
  const file = join(dir, 'mediactl.yaml')
  if (yaml !== undefined) writeFileSync(file, yaml)
  return loadConfig({ env, cwd: dir, file: yaml === undefined ? undefined : file }).config
}

function failure(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('choosing backends by name', () => {
  it('keeps the default set when nothing is chosen: queue-inline, storage-fs, no state plugin', () => {
    expect(DEFAULTS).toContain('queue-inline')
    expect(DEFAULTS).toContain('storage-fs')
    expect(DEFAULTS).not.toContain('queue-bullmq')
    expect(DEFAULTS).not.toContain('state-redis')
    expect(DEFAULTS).not.toContain('storage-s3')
  })

  it('replaces the role plugin in place: the rest of the default set stays', () => {
    const plugins = load('queue: bullmq\nstorage: s3\nstate: redis\n').plugins
    expect(plugins).toContain('queue-bullmq')
    expect(plugins).not.toContain('queue-inline')
    expect(plugins.indexOf('storage-s3')).toBe(DEFAULTS.indexOf('storage-fs'))
    expect(plugins).not.toContain('storage-fs')
    expect(plugins).toContain('state-redis')
    expect(plugins.filter((p) => !['queue-bullmq', 'storage-s3', 'state-redis'].includes(p))).toEqual(
      DEFAULTS.filter((p) => !['queue-inline', 'storage-fs'].includes(p)),
    )
  })

  it('reads the environment (MEDIACTL_QUEUE, MEDIACTL_STORAGE, MEDIACTL_STATE)', () => {
    const plugins = load(undefined, { MEDIACTL_QUEUE: 'bullmq', MEDIACTL_STATE: 'redis' }).plugins
    expect(plugins).toContain('queue-bullmq')
    expect(plugins).toContain('state-redis')
    expect(load(undefined, { MEDIACTL_STATE: 'memory' }).plugins).toEqual(DEFAULTS)
  })

  it('state: memory removes a state plugin a list named', () => {
    const plugins = load(`plugins: [root, platforms, state-redis]\nstate: memory\n`).plugins
    expect(plugins).toEqual(['root', 'platforms'])
  })

  it('leaves a full list alone when no backend is chosen (the legacy production list)', () => {
    expect(load(`plugins: [root, platforms, queue-bullmq]\n`).plugins).toEqual(['root', 'platforms', 'queue-bullmq'])
  })

  it('names the valid backends, and the closest one, for a wrong value', () => {
    const message = failure(() => load('queue: bulmq\n'))
    expect(message).toContain('queue:')
    expect(message).toContain("'inline' | 'bullmq'")
    expect(message).toContain('(did you mean "bullmq"?)')
    expect(failure(() => load(undefined, { MEDIACTL_STORAGE: 'ftp' }))).toContain(
      "storage: Invalid enum value. Expected 'fs' | 's3'",
    )
  })

  it('applyBackends appends a backend when no plugin of its role is listed', () => {
    expect(applyBackends(['root'], { queue: 'bullmq' })).toEqual(['root', 'queue-bullmq'])
    expect(applyBackends(['root', 'queue-bullmq'], { queue: 'bullmq' })).toEqual(['root', 'queue-bullmq'])
  })
})

describe('plugins.enable and plugins.disable', () => {
  it('disables from the default set without restating it', () => {
    const plugins = load('plugins:\n  disable: [portal, recorder]\n').plugins
    expect(plugins).toEqual(DEFAULTS.filter((p) => p !== 'portal' && p !== 'recorder'))
  })

  it('enables an optional plugin without restating the set', () => {
    expect(load('plugins:\n  enable: [state-redis]\n').plugins).toEqual([...DEFAULTS, 'state-redis'])
    expect(load('plugins:\n  enable: [root]\n').plugins).toEqual(DEFAULTS)
  })

  it('reads comma-separated lists from the environment, over the file', () => {
    const plugins = load('plugins:\n  disable: [portal]\n', {
      MEDIACTL_PLUGINS__DISABLE: 'recorder, player',
      MEDIACTL_PLUGINS__ENABLE: 'state-redis',
    }).plugins
    expect(plugins).toEqual([...DEFAULTS.filter((p) => !['portal', 'recorder', 'player'].includes(p)), 'state-redis'])
  })

  it('applies environment changes to MEDIACTL_PLUGINS when both are set', () => {
    const plugins = load(undefined, {
      MEDIACTL_PLUGINS: 'root,platforms,identity',
      MEDIACTL_PLUGINS__DISABLE: 'identity',
    }).plugins
    expect(plugins).toEqual(['root', 'platforms'])
  })

  it('a list in the file replaces the set; a later mapping changes that list', () => {
    expect(load('plugins: [root, platforms]\n').plugins).toEqual(['root', 'platforms'])
    expect(load('plugins: [root, platforms]\n', { MEDIACTL_PLUGINS__ENABLE: 'identity' }).plugins).toEqual([
      'root',
      'platforms',
      'identity',
    ])
  })

  it('refuses to disable a plugin that is not enabled, naming the closest enabled one', () => {
    const message = failure(() => load('plugins:\n  disable: [portl]\n'))
    expect(message).toContain('plugins.disable')
    expect(message).toContain('"portl", which is not enabled (did you mean "portal"?)')
    expect(message).toContain(join(dir, 'mediactl.yaml'))
  })

  it('refuses a mapping with another key, naming the closest', () => {
    expect(failure(() => load('plugins:\n  disabled: [portal]\n'))).toContain('plugins.disabled')
    expect(failure(() => load('plugins:\n  disabled: [portal]\n'))).toContain('(did you mean "disable"?)')
    expect(failure(() => load('plugins: portal\n'))).toContain('a list of plugin names (the whole set), or a mapping')
    expect(failure(() => load('plugins:\n  enable: portal\n'))).toContain('plugins.enable')
  })

  it('foldPlugins: later layers win, in order', () => {
    expect(
      foldPlugins([
        { source: 'a', value: ['x', 'y'] },
        { source: 'b', value: { disable: ['x'] } },
        { source: 'c', value: undefined },
        { source: 'd', value: { enable: ['z', 'x'] } },
      ]),
    ).toEqual(['y', 'z', 'x'])
  })
})

describe('validatePlugins (before anything is opened or written)', () => {
  it('accepts the default configuration', async () => {
    const { plugins } = await validatePlugins(load(undefined), CATALOG)
    expect(plugins.map((p) => p.name).sort()).toEqual([...DEFAULTS].sort())
  })

  it('names the closest plugin for an unknown one enabled', async () => {
    await expect(validatePlugins(load('plugins:\n  enable: [state-rediss]\n'), CATALOG)).rejects.toThrow(
      /unknown plugin "state-rediss".*\(did you mean "state-redis"\?\)/,
    )
  })

  it('names what is missing when a dependency is disabled', async () => {
    await expect(validatePlugins(load('plugins:\n  disable: [identity]\n'), CATALOG)).rejects.toThrow(
      /depends on "identity", which is not enabled: enable "identity" \(plugins.enable/,
    )
  })

  it('names the closest key for an unknown top-level key', async () => {
    await expect(validatePlugins(load('encoder-ffmepg:\n  threads: 2\n'), CATALOG)).rejects.toThrow(
      /unknown configuration key\(s\): "encoder-ffmepg" \(did you mean "encoder-ffmpeg"\?\)/,
    )
  })

  it("names the closest key for an unknown key in a plugin's section", async () => {
    await expect(validatePlugins(load('files:\n  max_file_sise: 10\n'), CATALOG)).rejects.toThrow(
      /files: unknown key "max_file_sise" \(did you mean "max_file_size"\?\)/,
    )
  })
})

describe('config/production.example.yaml', () => {
  it('is the default set with the production backends swapped in, and validates whole', async () => {
    const file = join(packageRoot(), 'config/production.example.yaml')
    const config = loadConfig({ env: { MEDIACTL_STORAGE_S3__BUCKET: 'media' }, cwd: dir, file }).config
    const swapped = { 'queue-inline': 'queue-bullmq', 'storage-fs': 'storage-s3' } as Record<string, string>
    expect(config.plugins).toEqual([...DEFAULTS.map((p) => swapped[p] ?? p), 'state-redis'])
    await validatePlugins(config, CATALOG)
  })
})

describe('closest', () => {
  it('finds typos, swaps included, and refuses wild guesses', () => {
    expect(closest('bulmq', ['inline', 'bullmq'])).toBe('bullmq')
    expect(closest('prot', ['host', 'port'])).toBe('port')
    expect(closest('zzzzzz', ['inline', 'bullmq'])).toBeUndefined()
    expect(closest('x', [])).toBeUndefined()
  })
})
