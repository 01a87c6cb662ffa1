import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Authz } from '../authz/authz.service.js'
import type { EntityManager } from '../db/orm.js'
import type { Reader } from '../cache/reader.js'
import type { Logger } from '../log.js'
import type { Principal } from '../ports/credentials.port.js'
import type { KernelServices } from '../services.js'
import { HttpError } from './errors.js'
import { type Form, type FormFile, type FormLimits, formFromQuery, readForm } from './forms.js'
import type { LinkBuilder } from './links.js'
import { type Page, askedPage, pageFor } from './range.js'
import { FieldReader, type FieldMode } from './validate.js'

/** The kernel services a request uses: its database access and the kernel's conventions. */
export type RequestServices = Pick<KernelServices, 'orm' | 'reader' | 'links' | 'authz' | 'log' | 'config'>

/**
 * Everything a route handler needs for one request: the request, its parameters, the
 * authenticated user, a request-scoped EntityManager, and the kernel's conventions
 * (forms, field validation, Range pages, links).
 */
export class HttpContext {
  /** Headers added to the answer (Content-Range, ...). */
  readonly responseHeaders: Record<string, string> = {}
  private entityManager: EntityManager | undefined

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** What the kernel lends a request; handlers reach it through the members below, never whole. */
    private readonly services: RequestServices,
    /** Decoded path parameters. */
    readonly params: Record<string, string>,
    /** Query string, without the leading `?`. */
    readonly search: string,
    /** The authenticated user; undefined on public routes and for requests carrying a token. */
    readonly user: Principal | undefined,
    /** The payload of the checked `token` query parameter, on routes with `tokenPurpose` (see RouteOptions). */
    readonly token?: Readonly<Record<string, unknown>>,
    /**
     * The path prefix a host mapping put before the request's path (`/portal/<media>` for a
     * request to a media's own domain, see `PluginContext.hosts`); '' otherwise. Pages build
     * their own links with it, so they work on both addresses.
     */
    readonly hostPrefix = '',
  ) {}

  /** The request-scoped EntityManager (one fork per request, made on first use). */
  get em(): EntityManager {
    this.entityManager ??= this.services.orm.em.fork() as EntityManager
    return this.entityManager
  }

  /** Read-only queries of committed data (inside a transaction, read through its EntityManager). */
  get reader(): Reader {
    return this.services.reader
  }

  get links(): LinkBuilder {
    return this.services.links
  }

  /** The authorization service. */
  get authz(): Authz {
    return this.services.authz
  }

  /** The id of this request in the log (also the answer's `X-Request-Id`). */
  get requestId(): string {
    return String(this.res.getHeader('x-request-id') ?? '')
  }

  get log(): Logger {
    return this.services.log
  }

  /** The authenticated user (routes are authenticated unless registered as public). */
  get principal(): Principal {
    if (!this.user) throw new HttpError(401, 'Authentication required.')
    return this.user
  }

  /** A path parameter. */
  param(name: string): string {
    return this.params[name] ?? ''
  }

  /** The query string as a form (bracket notation applies). */
  query(): Form {
    return formFromQuery(this.search)
  }

  /** Reads the body's fields (urlencoded or multipart), within the configured limits. */
  form(onFile?: (file: FormFile) => Promise<void>, limits: Partial<FormLimits> = {}): Promise<Form> {
    const http = this.services.config.http
    return readForm(this.req, { bodyLimit: http.body_limit, maxFields: http.max_fields, ...limits }, onFile)
  }

  /** A reader that validates fields and collects failures for one 412 answer. */
  fields(form: Form, mode: FieldMode): FieldReader {
    return new FieldReader(form, mode)
  }

  /** The page of a `total`-long list this request asks for (Range); sets Content-Range. */
  page(total: number): Page {
    const { page, headers } = pageFor(this.req.headers.range, total, this.services.config.http.max_list)
    Object.assign(this.responseHeaders, headers)
    return page
  }

  /** One page of a list: checks Range against `total`, then fetches only that slice. */
  async list<T>(total: number, fetch: (page: Page) => Promise<T[]>): Promise<T[]> {
    const page = this.page(total)
    return page.limit === 0 ? [] : fetch(page)
  }

  /**
   * One page of a list read with its count in one statement: `fetch` answers the slice the
   * Range asks for and the list's total, then the Range is checked against that total (416,
   * Content-Range) as `list` does. A round trip less than a count, then a page.
   */
  async listCounted<T>(fetch: (page: Page) => Promise<{ total: number; items: T[] }>): Promise<T[]> {
    const { total, items } = await fetch(askedPage(this.req.headers.range, this.services.config.http.max_list))
    return this.page(total).limit === 0 ? [] : items
  }
}
