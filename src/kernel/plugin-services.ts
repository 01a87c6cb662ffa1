/**
 * What a plugin offers the plugins that depend on it, such as its settings, under a typed key
 * its public entry exports (`serviceKey<FilesConfig>('files.settings')`). The user resolves
 * it once while it registers (`ctx.use(key)`: its dependencies registered before it) and its
 * handlers close over the value: nobody parses another plugin's configuration section or
 * looks a shared bag up per request.
 */
export interface ServiceKey<T> {
  /** `<plugin>.<what>`: the plugin that exposes it, then the thing. */
  readonly name: string
  /** Never set: carries `T` for the type checker. */
  readonly type?: T
}

const KEY_NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.[a-z0-9]+(?:-[a-z0-9]+)*$/

/** A key of `<plugin>.<what>`, exported by that plugin's public entry (index.ts). */
export function serviceKey<T>(name: string): ServiceKey<T> {
  if (!KEY_NAME.test(name)) throw new Error(`not a service key: "${name}" (expected <plugin>.<name>, kebab-case)`)
  return Object.freeze({ name })
}

const ownerOf = (key: ServiceKey<unknown>): string => KEY_NAME.exec(key.name)![1]!

/** The services plugins exposed, by key name. */
export class PluginServices {
  private readonly exposed_ = new Map<string, unknown>()

  /** `owner` offers `value` under `key`; a plugin exposes only keys named after it, each once. */
  expose<T>(owner: string, key: ServiceKey<T>, value: T): void {
    if (ownerOf(key) !== owner) {
      throw new Error(
        `plugin "${owner}" cannot expose "${key.name}": a plugin exposes only keys named "${owner}.<name>"`,
      )
    }
    if (this.exposed_.has(key.name)) throw new Error(`plugin "${owner}" exposes "${key.name}" twice`)
    this.exposed_.set(key.name, value)
  }

  /** What `key` names, whoever asks (the kernel's own callers); throws when nothing is exposed under it. */
  exposed<T>(key: ServiceKey<T>): T {
    if (!this.exposed_.has(key.name)) throw new Error(`no enabled plugin exposes "${key.name}"`)
    return this.exposed_.get(key.name) as T
  }

  /**
   * What `key` names, for `user`, which must declare the exposing plugin in `dependsOn` (so it
   * registered first); otherwise the boot stops saying what to declare or enable.
   */
  use<T>(user: { name: string; dependsOn?: string[] }, key: ServiceKey<T>): T {
    const owner = ownerOf(key)
    if (!(user.dependsOn ?? []).includes(owner)) {
      throw new Error(`plugin "${user.name}" uses "${key.name}": declare "${owner}" in its dependsOn`)
    }
    if (!this.exposed_.has(key.name)) {
      throw new Error(`plugin "${user.name}" uses "${key.name}", which plugin "${owner}" does not expose`)
    }
    return this.exposed_.get(key.name) as T
  }
}
