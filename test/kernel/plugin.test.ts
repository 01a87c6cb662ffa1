import { describe, expect, it } from 'vitest'
import { type PluginDefinition, definePlugin, resolvePlugins } from '../../src/kernel/plugin.js'
import { PortRegistry } from '../../src/kernel/ports.js'
import type { CredentialsPort } from '../../src/kernel/ports/credentials.port.js'
import type { NonceCounterPort } from '../../src/kernel/ports/nonce-counter.port.js'

function plugin(name: string, dependsOn?: string[]): PluginDefinition<never> {
  return definePlugin({ name, dependsOn, register: () => undefined }) as PluginDefinition<never>
}

function names(list: PluginDefinition<never>[]): string[] {
  return list.map((p) => p.name)
}

function failure(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(Error)
    return (error as Error).message
  }
  throw new Error('expected an error')
}

describe('resolvePlugins', () => {
  const catalog = [
    plugin('streams', ['media']),
    plugin('media', ['platforms']),
    plugin('platforms'),
    plugin('identity', ['platforms']),
    plugin('root'),
    plugin('widgets', ['media', 'identity']),
  ]

  it('keeps the configured order when dependencies allow it', () => {
    expect(names(resolvePlugins(['root', 'platforms', 'identity'], catalog))).toEqual(['root', 'platforms', 'identity'])
  })

  it('puts each plugin after its dependencies', () => {
    const ordered = names(resolvePlugins(['streams', 'widgets', 'identity', 'media', 'platforms', 'root'], catalog))
    expect(ordered).toEqual(['platforms', 'media', 'streams', 'identity', 'widgets', 'root'])
    for (const p of catalog) {
      for (const dependency of p.dependsOn ?? []) {
        expect(ordered.indexOf(dependency), `${dependency} before ${p.name}`).toBeLessThan(ordered.indexOf(p.name))
      }
    }
  })

  it('lists each plugin once even when several depend on it', () => {
    const ordered = names(resolvePlugins(['widgets', 'streams', 'media', 'identity', 'platforms'], catalog))
    expect(ordered).toHaveLength(5)
    expect(new Set(ordered).size).toBe(5)
  })

  it('enables only the listed plugins', () => {
    expect(names(resolvePlugins(['platforms'], catalog))).toEqual(['platforms'])
  })

  it('returns the definitions themselves', () => {
    const [first] = resolvePlugins(['root'], catalog)
    expect(first).toBe(catalog[4])
  })

  it('names an unknown plugin and the available ones', () => {
    const message = failure(() => resolvePlugins(['root', 'storage-ftp'], catalog))
    expect(message).toBe(
      'unknown plugin "storage-ftp" in the "plugins" config key (or plugins.enable, MEDIACTL_PLUGINS); available: streams, media, platforms, identity, root, widgets',
    )
  })

  it('refuses a plugin listed twice', () => {
    const message = failure(() => resolvePlugins(['root', 'platforms', 'root'], catalog))
    expect(message).toBe('plugin "root" is listed twice in the "plugins" config key')
  })

  it('refuses two available plugins with the same name', () => {
    const message = failure(() => resolvePlugins(['root'], [plugin('root'), plugin('root')]))
    expect(message).toBe('two plugins are named "root"')
  })

  it('names a missing dependency and how to fix it', () => {
    const message = failure(() => resolvePlugins(['streams', 'platforms'], catalog))
    expect(message).toBe(
      'plugin "streams" depends on "media", which is not enabled: enable "media" (plugins.enable, or the "plugins" list) or disable "streams" too (plugins.disable)',
    )
  })

  it('names a dependency that is not even available', () => {
    const message = failure(() => resolvePlugins(['a'], [plugin('a', ['ghost'])]))
    expect(message).toContain('"a" depends on "ghost"')
  })

  it('shows a dependency cycle as a readable chain', () => {
    const cyclic = [plugin('a', ['b']), plugin('b', ['c']), plugin('c', ['a'])]
    expect(failure(() => resolvePlugins(['a', 'b', 'c'], cyclic))).toBe('plugin dependency cycle: a -> b -> c -> a')
    expect(failure(() => resolvePlugins(['c', 'a', 'b'], cyclic))).toBe('plugin dependency cycle: c -> a -> b -> c')
  })

  it('shows only the cycle, not the path that led to it', () => {
    const list = [plugin('entry', ['x']), plugin('x', ['y']), plugin('y', ['x'])]
    expect(failure(() => resolvePlugins(['entry', 'x', 'y'], list))).toBe('plugin dependency cycle: x -> y -> x')
  })

  it('puts the port providers first, each after its own dependencies, so others resolve ports while registering', () => {
    const backend = definePlugin({ name: 'backend', provides: ['storage'], register: () => undefined })
    const identity = definePlugin({
      name: 'identity',
      dependsOn: ['platforms'],
      provides: ['credentials'],
      register: () => undefined,
    })
    const available = [...catalog.filter((p) => p.name !== 'identity'), backend, identity] as PluginDefinition<never>[]
    expect(names(resolvePlugins(['root', 'media', 'identity', 'backend', 'platforms'], available))).toEqual([
      'platforms',
      'identity',
      'backend',
      'root',
      'media',
    ])
  })

  it('detects a plugin depending on itself', () => {
    expect(failure(() => resolvePlugins(['self'], [plugin('self', ['self'])]))).toBe(
      'plugin dependency cycle: self -> self',
    )
  })
})

describe('PortRegistry', () => {
  const credentials: CredentialsPort = { findByUsername: async () => null }
  const counter: NonceCounterPort = { scope: 'process', advance: async () => true }

  it('returns the provided implementation', () => {
    const ports = new PortRegistry()
    expect(ports.has('credentials')).toBe(false)
    ports.provide('identity', 'credentials', credentials)
    expect(ports.has('credentials')).toBe(true)
    expect(ports.get('credentials')).toBe(credentials)
    expect(() => ports.check(['credentials'])).not.toThrow()
  })

  it('names a port without provider when asked for it', () => {
    const ports = new PortRegistry()
    expect(failure(() => ports.get('nonceCounter'))).toBe(
      'no plugin provides the "nonceCounter" port; enable one in the "plugins" config key',
    )
  })

  it('check: a required port without provider fails, naming it', () => {
    const ports = new PortRegistry()
    expect(failure(() => ports.check(['credentials']))).toBe(
      'port "credentials" has no provider: enable a plugin that provides it',
    )
  })

  it('check: a required port with two providers fails, naming both', () => {
    const ports = new PortRegistry()
    ports.provide('identity', 'credentials', credentials)
    ports.provide('ldap', 'credentials', credentials)
    expect(failure(() => ports.check(['credentials']))).toBe(
      'port "credentials" has several providers (identity, ldap): keep one',
    )
  })

  it('check: an optional port may be absent but not provided twice', () => {
    const ports = new PortRegistry()
    ports.provide('identity', 'credentials', credentials)
    expect(() => ports.check(['credentials'])).not.toThrow()
    ports.provide('state-redis', 'nonceCounter', counter)
    expect(() => ports.check(['credentials'])).not.toThrow()
    ports.provide('other', 'nonceCounter', counter)
    expect(failure(() => ports.check(['credentials']))).toBe(
      'port "nonceCounter" has several providers (state-redis, other): keep one',
    )
  })

  it('check: lists every problem at once', () => {
    const ports = new PortRegistry()
    ports.provide('a', 'nonceCounter', counter)
    ports.provide('b', 'nonceCounter', counter)
    expect(failure(() => ports.check()).split('\n')).toEqual([
      'port "credentials" has no provider: enable a plugin that provides it',
      'port "accessGrants" has no provider: enable a plugin that provides it',
      'port "storage" has no provider: enable a plugin that provides it',
      'port "nonceCounter" has several providers (a, b): keep one',
    ])
  })

  it('check: honours an explicit list of required ports', () => {
    const ports = new PortRegistry()
    expect(() => ports.check([])).not.toThrow()
    expect(failure(() => ports.check(['nonceCounter']))).toBe(
      'port "nonceCounter" has no provider: enable a plugin that provides it',
    )
  })
})
