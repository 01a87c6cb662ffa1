import polka from 'polka'
import type { HttpContext } from './context.js'
import type { Reply } from './reply.js'

export type Handler = (c: HttpContext) => Promise<Reply> | Reply

export interface RouteOptions {
  /** Served without authentication (public key, player pages). */
  public?: boolean
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
}

/** The route table of the whole application; matching is polka's (trouter). */
export class RouteTable {
  private readonly table = polka()
  readonly routes: Route[] = []

  /** A Router whose registrations are owned by `owner`. */
  forPlugin(owner: string): Router {
    const add =
      (method: string) =>
      (path: string, handler: Handler, options: RouteOptions = {}): void => {
        const clash = this.routes.find((r) => r.method === method && r.path === path)
        if (clash) throw new Error(`route ${method} ${path} of plugin ${owner} is already declared by ${clash.owner}`)
        const route: Route = { method, path, owner, handler, options }
        this.routes.push(route)
        this.table.add(method as 'GET', path, route as never)
      }
    return { get: add('GET'), post: add('POST'), put: add('PUT'), delete: add('DELETE') }
  }

  /** The route for a method and path, with its raw (still encoded) parameters. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    const found = this.table.find(method as 'GET', path)
    const route = found.handlers[0] as unknown as Route | undefined
    return route ? { route, params: found.params } : undefined
  }
}
