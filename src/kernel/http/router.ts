import polka from 'polka'
import type { HttpContext } from './context.js'
import type { Reply } from './reply.js'

export type Handler = (c: HttpContext) => Promise<Reply> | Reply

export interface RouteOptions {
  /** Served without authentication (public key, player pages). */
  public?: boolean
  /**
   * Served to requests without credentials too (the public media of published resources): a
   * request without `Authorization` reaches the handler with no user, and the handler decides
   * (a 401 it throws carries the Digest challenge, so a client holding credentials sends them);
   * a request with credentials is authenticated as usual.
   */
  anonymous?: boolean
  /**
   * Who may call it, in words, for docs/authorization.md (generated from the route table,
   * so it cannot drift): for example `profile user.view on the user's platform`.
   */
  permission?: string
  /** Media type of a non-XML answer (PEM, JSON, media bytes): Accept may ask for it instead of XML. */
  produces?: string
  /**
   * Media links: a signed token of this purpose (`signToken`) in the `token` query parameter
   * is accepted instead of Digest credentials. The kernel checks its signature (401 when it
   * is not one of ours) and expiry (403 once expired) and hands its payload to the handler
   * as `c.token`; the handler checks what the token is bound to. Without a `token`
   * parameter the route authenticates with Digest as usual.
   */
  tokenPurpose?: string
  /**
   * A page other sites may frame (the player, the recorder): its error pages may be framed
   * too, so an embed shows "Not found" instead of a blocked frame.
   */
  embeddable?: boolean
}

export interface Route {
  method: string
  path: string
  owner: string
  handler: Handler
  options: RouteOptions
}

/** What a plugin uses to declare its routes: `r.get('/platform/:platform', handler)`. */
export interface Router {
  get(path: string, handler: Handler, options?: RouteOptions): void
  post(path: string, handler: Handler, options?: RouteOptions): void
  put(path: string, handler: Handler, options?: RouteOptions): void
  delete(path: string, handler: Handler, options?: RouteOptions): void
  /**
   * Every method (also HEAD, PATCH, OPTIONS) on `path`, for a protocol handled whole by a
   * library (tus): the handler writes the answer itself and returns `reply.handled()`.
   */
  all(path: string, handler: Handler, options?: RouteOptions): void
}

/** The methods `Router.all` answers. */
export const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** The first path segment of a pattern or path (`/platform/:x` → `platform`); '' for `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1)
  return path.slice(1, end === -1 ? undefined : end)
}

/**
 * The route table of the whole application; matching is polka's (trouter), bucketed by
 * the first path segment so a request is only matched against its own family's patterns.
 */
export class RouteTable {
  private readonly tables = new Map<string, ReturnType<typeof polka>>()
  /** Patterns whose first segment is a parameter match any path. */
  private readonly wildcard = polka()
  readonly routes: Route[] = []

  /** A Router whose registrations are owned by `owner`. */
  forPlugin(owner: string): Router {
    const add =
      (method: string) =>
      (path: string, handler: Handler, options: RouteOptions = {}): void => {
        const clash = this.routes.find(
          (r) => (r.method === method || r.method === 'ALL' || method === 'ALL') && r.path === path,
        )
        if (clash) throw new Error(`route ${method} ${path} of plugin ${owner} is already declared by ${clash.owner}`)
        const route: Route = { method, path, owner, handler, options }
        this.routes.push(route)
        const segment = firstSegment(path)
        let table = this.wildcard
        if (!segment.startsWith(':') && !segment.includes('*')) {
          table = this.tables.get(segment) ?? polka()
          this.tables.set(segment, table)
        }
        for (const each of method === 'ALL' ? ALL_METHODS : [method]) table.add(each as 'GET', path, route as never)
      }
    return { get: add('GET'), post: add('POST'), put: add('PUT'), delete: add('DELETE'), all: add('ALL') }
  }

  /** The route for a method and path, with its raw (still encoded) parameters. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const table of [this.tables.get(firstSegment(path)), this.wildcard]) {
      if (!table) continue
      const found = table.find(method as 'GET', path)
      const route = found.handlers[0] as unknown as Route | undefined
      if (route) return { route, params: found.params }
    }
    return undefined
  }
}
