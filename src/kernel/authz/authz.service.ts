import type { Reader } from '../cache/reader.js'
import { HttpError } from '../http/errors.js'
import type { PortRegistry } from '../ports.js'
import type { Principal } from '../ports/credentials.port.js'
import { INSTANCE_ADMIN_FLAG, hasFlag, isInstanceAdmin } from './flags.js'
import type { ObjectKind, ObjectRef } from './object-kinds.js'

/** The profile flag that makes its holders administrators of their own platform. */
export const PLATFORM_ADMIN_FLAG = 'platform.edit'

/** How to name an object in a 404 message. */
export interface Describe {
  /** The slug or name the client used, shown in the 404 message. */
  name?: string
  /** What the client asked for, when it is not the object checked (`user` for a user's platform). */
  kind?: string
  /**
   * The object is not public (a hidden or draft stream or resource, or one inside such a
   * stream): seeing it also needs `<kind>.view_protected` on it.
   */
  hidden?: boolean
}

function notVisible(ref: ObjectRef, describe: Describe): HttpError {
  const kind = describe.kind ?? ref.kind
  return new HttpError(404, describe.name ? `No ${kind} "${describe.name}".` : `No such ${kind}.`)
}

function denied(action: string): HttpError {
  return new HttpError(403, `This needs the "${action}" permission.`)
}

/**
 * The one authorization service (docs/authorization.md). Two layers:
 * - profile flags (the user's profile) gate platform-level capabilities: managing users,
 *   groups, roles, profiles, files, metadata, player themes; `instance.view` makes an
 *   installation administrator, who may do everything;
 * - role flags, through accesses of the user and of their groups, gate what a user may do
 *   on platforms, media, streams and resources; an access applies to its object and
 *   everything below it. A profile with `platform.edit` makes its holders administrators of
 *   their platform: every role flag on it and on everything in it. A user's profile flags of
 *   the `platform` model also count on their own platform.
 * Nothing of another platform is ever granted, whatever accesses say.
 * Objects the user may not view answer 404; objects they may view but not act on, 403.
 */
export class Authz {
  private readonly kinds = new Map<string, ObjectKind>()

  constructor(
    private readonly reader: Reader,
    private readonly ports: PortRegistry,
  ) {}

  /** Registers a kind of object (called by the plugin that owns it). */
  registerKind(kind: ObjectKind): void {
    if (this.kinds.has(kind.kind)) throw new Error(`object kind "${kind.kind}" is registered twice`)
    this.kinds.set(kind.kind, kind)
  }

  /** Names of the registered kinds. */
  kindNames(): string[] {
    return [...this.kinds.keys()]
  }

  /** A registered kind (throws for an unknown one). */
  kind(name: string): ObjectKind {
    const kind = this.kinds.get(name)
    if (!kind) throw new Error(`unknown object kind "${name}": its plugin must register it`)
    return kind
  }

  /** The object of `kind` with this slug, or null. */
  async find(kind: string, slug: string): Promise<ObjectRef | null> {
    const id = await this.kind(kind).idOf(this.reader, slug)
    return id === null ? null : { kind, id }
  }

  /** The slug of an object, or null when it is gone. */
  slugOf(ref: ObjectRef): Promise<string | null> {
    return this.kind(ref.kind).slugOf(this.reader, ref.id)
  }

  /** The object and its ancestors, nearest first, ending with its platform. */
  async chain(ref: ObjectRef): Promise<ObjectRef[]> {
    const chain: ObjectRef[] = [ref]
    let current: ObjectRef | null = ref
    while (current) {
      current = await this.kind(current.kind).parent(this.reader, current.id)
      if (current) {
        if (chain.length > 64) throw new Error(`object tree of ${ref.kind} ${ref.id} is deeper than 64 levels`)
        chain.push(current)
      }
    }
    return chain
  }

  /**
   * Every role flag the user holds on an object (`'all'` for administrators), computed
   * once per object: profile layer, platform administration, and accesses up the tree.
   */
  async flagsOn(user: Principal, ref: ObjectRef): Promise<ReadonlySet<string> | 'all'> {
    if (isInstanceAdmin(user)) return 'all'
    const chain = await this.chain(ref)
    const root = chain.at(-1)!
    if (root.kind !== 'platform' || root.id !== user.platformId) return new Set()
    if (user.flags.has(PLATFORM_ADMIN_FLAG)) return 'all'
    const granted = await this.ports.get('accessGrants').roleFlags(user, chain)
    const own = [...user.flags].filter((flag) => flag.startsWith('platform.'))
    if (own.every((flag) => granted.has(flag))) return granted
    const flags = new Set(granted)
    for (const flag of own) flags.add(flag)
    return flags
  }

  /**
   * Whether the user sees the object: `<kind>.view` on it, and `<kind>.view_protected` when its
   * kind says it is hidden (`ObjectKind.hidden`). `flags`: the user's flags on it, when known.
   */
  async sees(user: Principal, ref: ObjectRef, flags?: ReadonlySet<string> | 'all'): Promise<boolean> {
    const held = flags ?? (await this.flagsOn(user, ref))
    if (held === 'all') return true
    if (!held.has(`${ref.kind}.view`)) return false
    const kind = this.kind(ref.kind)
    if (!kind.hidden || held.has(`${ref.kind}.view_protected`)) return true
    return !(await kind.hidden(this.reader, ref.id))
  }

  /**
   * Whether the object is not public, as its kind says (`ObjectKind.hidden`; never for kinds
   * without one): what decides `view_protected`, for plugins that check an object of another.
   */
  async isHidden(ref: ObjectRef): Promise<boolean> {
    const kind = this.kind(ref.kind)
    return kind.hidden ? kind.hidden(this.reader, ref.id) : false
  }

  /**
   * Whether the object is hidden from the user: not public (`ObjectKind.hidden`) and the user
   * lacks `<kind>.view_protected` on it. Lists that name objects leave such ones unnamed.
   */
  async hiddenFrom(user: Principal, ref: ObjectRef): Promise<boolean> {
    const kind = this.kind(ref.kind)
    if (!kind.hidden || !(await kind.hidden(this.reader, ref.id))) return false
    const held = await this.flagsOn(user, ref)
    return held !== 'all' && !held.has(`${ref.kind}.view_protected`)
  }

  /** Whether the user may do `action` (`model.action`) on the object. */
  async can(user: Principal, action: string, ref: ObjectRef): Promise<boolean> {
    const flags = await this.flagsOn(user, ref)
    return flags === 'all' || flags.has(action)
  }

  /**
   * Throws 404 unless the user may view the object (`<model>.view`, the model being the
   * action's), then 403 unless they may do `action` on it.
   */
  async require(user: Principal, action: string, ref: ObjectRef, describe: Describe = {}): Promise<void> {
    const flags = await this.flagsOn(user, ref)
    if (flags === 'all') return
    const model = action.slice(0, action.indexOf('.'))
    if (!flags.has(`${model}.view`)) throw notVisible(ref, describe)
    if (describe.hidden && !flags.has(`${ref.kind}.view_protected`)) throw notVisible(ref, describe)
    if (!flags.has(action)) throw denied(action)
  }

  /**
   * For creating inside a container (a stream in a media, a resource in a stream): throws 404
   * unless the user may view the container (`<container kind>.view`), then 403 unless they
   * may do `action` (`stream.create`) on it.
   */
  async requireWithin(user: Principal, action: string, container: ObjectRef, describe: Describe = {}): Promise<void> {
    const flags = await this.flagsOn(user, container)
    if (flags === 'all') return
    if (!flags.has(`${container.kind}.view`)) throw notVisible(container, describe)
    if (describe.hidden && !flags.has(`${container.kind}.view_protected`)) throw notVisible(container, describe)
    if (!flags.has(action)) throw denied(action)
  }

  /**
   * For platform-level capabilities: throws 404 unless the user may view the platform (and,
   * with `see`, holds that profile flag, which makes the thing visible: `user.view` for
   * users), then 403 unless their profile holds `flag`.
   */
  async requireProfile(
    user: Principal,
    flag: string,
    platformId: number,
    describe: Describe & { see?: string } = {},
  ): Promise<void> {
    const platform: ObjectRef = { kind: 'platform', id: platformId }
    if (!(await this.can(user, 'platform.view', platform))) throw notVisible(platform, describe)
    if (describe.see && !hasFlag(user, describe.see)) throw notVisible(platform, describe)
    if (!hasFlag(user, flag)) throw new HttpError(403, `This needs the "${flag}" permission of your profile.`)
  }

  /** Whether the user's profile holds `flag` (installation administrators hold all). */
  hasProfileFlag(user: Principal, flag: string): boolean {
    return hasFlag(user, flag)
  }

  /** Throws 403 unless the user is an installation administrator. */
  requireInstanceAdmin(user: Principal): void {
    if (!isInstanceAdmin(user))
      throw new HttpError(403, `This needs the "${INSTANCE_ADMIN_FLAG}" permission of your profile.`)
  }

  /**
   * The list scope for objects of `kind` inside `container`: `'all'` when the user may view
   * the container (so everything in it), else the ids of the objects of `kind` the user was
   * granted `<kind>.view` on directly; the owning plugin adds their descendants when its
   * kind nests (sub-streams).
   */
  async scope(user: Principal, kind: string, container: ObjectRef): Promise<'all' | Set<number>> {
    const flags = await this.flagsOn(user, container)
    if (flags === 'all' || flags.has(`${kind}.view`)) return 'all'
    const root = (await this.chain(container)).at(-1)!
    if (root.id !== user.platformId) return new Set()
    return new Set(await this.ports.get('accessGrants').objectsWith(user, kind, `${kind}.view`))
  }

  /** The ids of the objects of `kind` on which the user was granted `flag` directly (by an access). */
  async grantedOn(user: Principal, kind: string, flag: string): Promise<Set<number>> {
    return new Set(await this.ports.get('accessGrants').objectsWith(user, kind, flag))
  }
}
