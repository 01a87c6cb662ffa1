import {
  type HttpContext,
  type ObjectRef,
  type PluginDefinition,
  definePlugin,
  notFound,
  reply,
  transaction,
  xml,
} from '../../src/kernel/index.js'
import { objectAccessesHandler, objectAccessesPermission } from '../../plugins/identity/index.js'

/**
 * The configured plugins without the publishing ones (media, streams, resources and what
 * builds on them), whose kinds the fake plugin stands in for: pass as `config.plugins`.
 */
export const PLUGINS_WITHOUT_PUBLISHING = [
  'root',
  'platforms',
  'identity',
  'storage-fs',
  'metadata',
  'files',
  'encoder-ffmpeg',
  'queue-inline',
  'encoding',
  'subtitles',
]

/** The access-tree kinds the fake plugin registers (their real plugins come in later issues). */
export const FAKE_KINDS = ['media', 'stream', 'resource'] as const

interface FakeObject {
  ref: ObjectRef
  slug: string
  parent: ObjectRef
}

const key = (ref: ObjectRef): string => `${ref.kind}:${ref.id}`

/**
 * An in-memory tree of media, streams and resources under real platforms, standing in for
 * the media plugins. Ids are counted per kind from 1, like database ids, so a media and a
 * stream (and a platform) routinely share an id: checks must tell kinds apart.
 */
export class FakeTree {
  private readonly objects = new Map<string, FakeObject>()
  private readonly next = new Map<string, number>()

  /** Adds an object under `parent` (a platform, media or stream). */
  add(kind: (typeof FAKE_KINDS)[number], slug: string, parent: ObjectRef): ObjectRef {
    const id = (this.next.get(kind) ?? 0) + 1
    this.next.set(kind, id)
    const ref = { kind, id }
    this.objects.set(key(ref), { ref, slug, parent })
    return ref
  }

  parent(ref: ObjectRef): ObjectRef | null {
    return this.objects.get(key(ref))?.parent ?? null
  }

  slugOf(ref: ObjectRef): string | null {
    return this.objects.get(key(ref))?.slug ?? null
  }

  idOf(kind: string, slug: string): number | null {
    for (const o of this.objects.values()) if (o.ref.kind === kind && o.slug === slug) return o.ref.id
    return null
  }

  /** Removes an object and everything below it; returns what was removed, the object first. */
  remove(ref: ObjectRef): ObjectRef[] {
    if (!this.objects.delete(key(ref))) return []
    const removed = [ref]
    for (const o of [...this.objects.values()]) {
      if (o.parent.kind === ref.kind && o.parent.id === ref.id) removed.push(...this.remove(o.ref))
    }
    return removed
  }
}

/** The object of `kind` in the path, once the caller may do `action` on it (404 / 403 otherwise). */
async function objectFromPath(c: HttpContext, tree: FakeTree, kind: string, action: string): Promise<ObjectRef> {
  const slug = c.param(kind)
  const id = tree.idOf(kind, slug)
  if (id === null) throw notFound(`No ${kind} "${slug}".`)
  const ref = { kind, id }
  await c.authz.require(c.principal, action, ref, { name: slug })
  return ref
}

/**
 * A plugin registering media, stream and resource kinds backed by `tree`, with just enough
 * routes to observe authorization: `GET /<kind>/<slug>` (view), `PUT` (edit), `DELETE`
 * (delete: removes the subtree and emits `authz.objects-deleted` in a transaction, as the
 * real plugins will) and `GET /<kind>/<slug>/accesses` (the identity plugin's handler).
 */
export function fakeKindsPlugin(tree: FakeTree): PluginDefinition {
  return definePlugin({
    name: 'fake-kinds',
    dependsOn: ['identity'],
    register(ctx) {
      for (const kind of FAKE_KINDS) {
        ctx.authz.registerKind({
          kind,
          parent: (_reader, id) => Promise.resolve(tree.parent({ kind, id })),
          idOf: (_reader, slug) => Promise.resolve(tree.idOf(kind, slug)),
          slugOf: (_reader, id) => Promise.resolve(tree.slugOf({ kind, id })),
        })
      }
      ctx.routes((r) => {
        for (const kind of FAKE_KINDS) {
          const path = `/${kind}/:${kind}`
          const show = (c: HttpContext, ref: ObjectRef) =>
            reply.xml(
              200,
              xml.el(kind, { href: c.links.url(kind, tree.slugOf(ref)!) }, [xml.str('slug', tree.slugOf(ref))]),
            )
          r.get(path, async (c) => show(c, await objectFromPath(c, tree, kind, `${kind}.view`)), {
            permission: `${kind}.view`,
          })
          r.put(path, async (c) => show(c, await objectFromPath(c, tree, kind, `${kind}.edit`)), {
            permission: `${kind}.edit`,
          })
          r.delete(
            path,
            async (c) => {
              const removed = tree.remove(await objectFromPath(c, tree, kind, `${kind}.delete`))
              await transaction(c.em, async (em) => {
                for (const k of FAKE_KINDS) {
                  const ids = removed.filter((ref) => ref.kind === k).map((ref) => ref.id)
                  if (ids.length > 0) await ctx.emit('authz.objects-deleted', { em, kind: k, ids })
                }
              })
              return reply.noContent()
            },
            { permission: `${kind}.delete` },
          )
          r.get(`${path}/accesses`, objectAccessesHandler(kind, kind), { permission: objectAccessesPermission(kind) })
        }
      })
    },
  })
}
