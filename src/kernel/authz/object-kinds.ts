import type { Reader } from '../cache/reader.js'

/** An object that accesses can target: a platform, a media, a stream, a resource. */
export interface ObjectRef {
  /** The kind's name, as registered (`platform`, `media`, `stream`, `resource`). */
  kind: string
  /** Database id. */
  id: number
}

/**
 * A kind of object in the access tree, registered by the plugin that owns it. Accesses on
 * an object apply to everything below it, so each kind says what its parent is.
 */
export interface ObjectKind {
  /** Name used in access records and in the permission strings of its role model. */
  kind: string
  /** The parent of an object (null only for the root kind, platform), from committed data. */
  parent(reader: Reader, id: number): Promise<ObjectRef | null>
  /** The id of the object with this slug, or null (resolves request fields such as `stream=<slug>`). */
  idOf(reader: Reader, slug: string): Promise<number | null>
  /** The slug of an object, for links (`/<kind>/<slug>`), or null when it is gone. */
  slugOf(reader: Reader, id: number): Promise<string | null>
  /**
   * Whether the object is not public (a hidden or draft stream or resource, or one inside such
   * a stream): seeing it then also needs `<kind>.view_protected`. Absent: always public.
   */
  hidden?(reader: Reader, id: number): Promise<boolean>
}
