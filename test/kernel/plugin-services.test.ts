import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PluginServices } from '../../src/kernel/plugin-services.js'
import { definePlugin, reply, serviceKey, xml } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'

/** What a plugin exposes to those that depend on it (`ctx.expose`, `ctx.use`). */
describe('serviceKey and PluginServices', () => {
  const GREETING = serviceKey<{ text: string }>('greeter.greeting')

  it('names a key after its plugin: <plugin>.<name>, kebab-case', () => {
    expect(serviceKey('files.settings').name).toBe('files.settings')
    for (const bad of ['files', 'Files.settings', 'files.', '.settings', 'files.settings.more', 'files settings']) {
      expect(() => serviceKey(bad), bad).toThrow(/not a service key/)
    }
  })

  it('gives a dependent what was exposed, the same object', () => {
    const services = new PluginServices()
    const greeting = { text: 'hello' }
    services.expose('greeter', GREETING, greeting)
    expect(services.use({ name: 'user', dependsOn: ['greeter'] }, GREETING)).toBe(greeting)
  })

  it('refuses a key of another plugin, and the same key twice', () => {
    const services = new PluginServices()
    expect(() => services.expose('other', GREETING, { text: 'x' })).toThrow(
      'plugin "other" cannot expose "greeter.greeting": a plugin exposes only keys named "other.<name>"',
    )
    services.expose('greeter', GREETING, { text: 'x' })
    expect(() => services.expose('greeter', GREETING, { text: 'y' })).toThrow('exposes "greeter.greeting" twice')
  })

  it('refuses a user that does not declare the plugin, and a key nobody exposed', () => {
    const services = new PluginServices()
    services.expose('greeter', GREETING, { text: 'x' })
    expect(() => services.use({ name: 'user' }, GREETING)).toThrow(
      'plugin "user" uses "greeter.greeting": declare "greeter" in its dependsOn',
    )
    expect(() => services.use({ name: 'user', dependsOn: ['greeter'] }, serviceKey('greeter.other'))).toThrow(
      'plugin "user" uses "greeter.other", which plugin "greeter" does not expose',
    )
  })
})

describe('in a booted kernel', () => {
  const GREETING = serviceKey<{ text: string }>('test-greeter.greeting')
  const greeter = definePlugin({
    name: 'test-greeter',
    register(ctx) {
      ctx.expose(GREETING, { text: 'Bonjour' })
    },
  })
  const user = definePlugin({
    name: 'test-greeted',
    dependsOn: ['test-greeter'],
    register(ctx) {
      // Resolved once, closed over by the handler.
      const { text } = ctx.use(GREETING)
      ctx.routes((r) => r.get('/greeting', async () => reply.xml(200, xml.str('greeting', text)), { public: true }))
    },
  })
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ plugins: [greeter as never, user as never] })
  })
  afterAll(async () => app?.close())

  it('serves with what the plugin it depends on exposed', async () => {
    const res = await app.client.get('/greeting')
    expect(res.status).toBe(200)
    expect(res.body).toContain('<greeting><![CDATA[Bonjour]]></greeting>')
  })

  it("answers the kernel's own callers (the CLI, tests) what a plugin exposed, and names a key nobody exposed", () => {
    expect(app.kernel.exposed(GREETING)).toEqual({ text: 'Bonjour' })
    expect(() => app.kernel.exposed(serviceKey('test-greeter.other'))).toThrow(
      'no enabled plugin exposes "test-greeter.other"',
    )
  })

  it('stops the boot when a plugin uses a key of a plugin it does not declare, naming both', async () => {
    const undeclared = definePlugin({
      name: 'test-undeclared',
      register(ctx) {
        ctx.use(GREETING)
      },
    })
    await expect(startApp({ plugins: [greeter as never, undeclared as never] })).rejects.toThrow(
      'plugin "test-undeclared" uses "test-greeter.greeting": declare "test-greeter" in its dependsOn',
    )
  })
})

/** Ports are resolved while a plugin registers (`ctx.port`), closed over by its handlers. */
describe('ports at registration', () => {
  /** The required plugins only: no encoder. */
  const BARE = ['root', 'platforms', 'identity', 'storage-fs']

  it('gives a plugin the ports it uses, and whether an optional one is provided, while it registers', async () => {
    const reader = definePlugin({
      name: 'test-port-user',
      register(ctx) {
        const storage = ctx.port('storage')
        const optional = ctx.hasPort('encoder')
        ctx.routes((r) =>
          r.get(
            '/port-user',
            async () => {
              const stat = await storage.stat('files/none').catch(() => null)
              return reply.xml(200, xml.str('port', `${stat === null ? 'absent' : 'present'} ${optional}`))
            },
            { public: true },
          ),
        )
      },
    })
    const app = await startApp({ plugins: [reader as never], config: { plugins: BARE } })
    try {
      const res = await app.client.get('/port-user')
      expect(res.status).toBe(200)
      expect(res.body).toContain('<port><![CDATA[absent false]]></port>')
    } finally {
      await app.close()
    }
  })

  it('stops the boot, saying what to enable, when a plugin asks for a port nobody provides', async () => {
    const wants = definePlugin({
      name: 'test-wants-encoder',
      register(ctx) {
        ctx.port('encoder')
      },
    })
    await expect(startApp({ plugins: [wants as never], config: { plugins: BARE } })).rejects.toThrow(
      'no plugin provides the "encoder" port; enable one in the "plugins" config key',
    )
  })

  it('stops the boot when a plugin provides a port it does not declare in provides', async () => {
    const sneaky = definePlugin({
      name: 'test-sneaky',
      register(ctx) {
        ctx.provide('locks', {} as never)
      },
    })
    await expect(startApp({ plugins: [sneaky as never] })).rejects.toThrow(
      'plugin "test-sneaky" provides the "locks" port: declare it in its provides',
    )
  })
})
