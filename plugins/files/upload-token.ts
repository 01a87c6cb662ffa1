import {
  type CredentialsPort,
  HttpError,
  type HttpContext,
  type LinkBuilder,
  type Tokens,
  forbidden,
  serviceKey,
} from '../../src/kernel/index.js'
import type { FilesConfig } from './files.config.js'
import { directoryOf } from './files.lookup.js'
import type { Uploader } from './files.types.js'

/** Signed tokens of this purpose open the upload endpoints, and nothing else. */
const PURPOSE = 'upload'

/** What an upload token carries: the user and the directory it uploads into (null: the root). */
interface UploadGrant {
  u: string
  d: string | null
}

/** A checked upload token: who uploads, and where. */
export interface UploadTarget {
  uploader: Uploader
  /** The directory bound to the token; null for the root. */
  directory: { id: number; slug: string } | null
  expiresAt: Date
}

const refused = (message: string): HttpError => new HttpError(401, message)

/** The token of a request to an upload endpoint: the `token` query parameter, or the `Upload-Token` header. */
export function tokenOf(c: HttpContext): string | undefined {
  const fromQuery = new URLSearchParams(c.search).get('token')
  const fromHeader = c.req.headers['upload-token']
  return fromQuery ?? (typeof fromHeader === 'string' ? fromHeader : undefined)
}

/**
 * The upload links of the file store: their tokens, the base URL of the endpoints, and the
 * check of a token sent back. Exposed as `UPLOAD_LINKS` to the plugins that hand out links
 * of their own (the recorder).
 */
export class UploadLinks {
  constructor(
    private readonly tokens: Tokens,
    private readonly links: LinkBuilder,
    private readonly config: FilesConfig,
    private readonly credentials: CredentialsPort,
  ) {}

  /** The token of an upload link, valid for `files.upload_link_ttl` seconds. */
  token(username: string, directory: string | null): string {
    const grant: UploadGrant = { u: username, d: directory }
    return this.tokens.sign(PURPOSE, grant, new Date(Date.now() + this.config.upload_link_ttl * 1000))
  }

  /** The base URL of the upload endpoints (`files.upload_base_url`, else the public base URL), without a trailing `/`. */
  get base(): string {
    return (this.config.upload_base_url || this.links.base).replace(/\/+$/, '')
  }

  /**
   * Checks the token of an upload endpoint (docs/api/files.md, Upload links): 401 when missing,
   * malformed, forged or expired, or when its user no longer exists or is inactive; 403 when
   * the user lost `file.create`; 404 when its directory was deleted.
   */
  async check(c: HttpContext): Promise<UploadTarget> {
    const token = tokenOf(c)
    if (!token) throw refused('This endpoint needs the token of an upload link (POST /files/upload_links).')
    const check = this.tokens.verify<UploadGrant>(PURPOSE, token)
    if (!check.ok) {
      throw refused(
        check.problem === 'expired'
          ? 'The upload link expired: ask for a new one (POST /files/upload_links).'
          : 'The upload token is not valid: ask for a new upload link (POST /files/upload_links).',
      )
    }
    const { u: username, d: slug } = check.payload
    const user = typeof username === 'string' ? await this.credentials.findByUsername(username) : null
    if (!user || !user.isActive) throw refused('The user of this upload link cannot upload any more.')
    if (!c.authz.hasProfileFlag(user, 'file.create')) {
      throw forbidden('The user of this upload link no longer holds the "file.create" permission of their profile.')
    }
    const uploader: Uploader = { id: user.id, username: user.username, platformId: user.platformId }
    const directory = typeof slug === 'string' ? await directoryOf(c, user.id, slug) : null
    return { uploader, directory: directory && { id: directory.id, slug: directory.slug }, expiresAt: check.expiresAt }
  }
}

/** The file store's upload links, for the plugins that depend on it. */
export const UPLOAD_LINKS = serviceKey<UploadLinks>('files.upload-links')

/** 403 when an upload names a directory (`folder`) other than the one its link is for. */
export function requireSameDirectory(target: UploadTarget, folder: unknown): void {
  if (folder === undefined || folder === '') return
  if (folder !== (target.directory?.slug ?? null)) {
    throw forbidden(
      `This upload link uploads into ${target.directory ? `the directory "${target.directory.slug}"` : 'the root directory'} only.`,
    )
  }
}
