import {
  HttpError,
  type HttpContext,
  type KernelServices,
  forbidden,
  signToken,
  verifyToken,
} from '../../src/kernel/index.js'
import type { FilesConfig } from './files.config.js'
import { directoryOf } from './files.lookup.js'
import type { Uploader } from './upload.service.js'

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

/** The token of an upload link, valid for `files.upload_link_ttl` seconds. */
export function uploadToken(
  services: KernelServices,
  config: FilesConfig,
  username: string,
  directory: string | null,
): string {
  const grant: UploadGrant = { u: username, d: directory }
  return signToken(services.secret, PURPOSE, grant, new Date(Date.now() + config.upload_link_ttl * 1000))
}

/** The base URL of the upload endpoints (`files.upload_base_url`, else the public base URL), without a trailing `/`. */
export function uploadBase(services: KernelServices, config: FilesConfig): string {
  return (config.upload_base_url || services.links.base).replace(/\/+$/, '')
}

const refused = (message: string): HttpError => new HttpError(401, message)

/** The token of a request to an upload endpoint: the `token` query parameter, or the `Upload-Token` header. */
export function tokenOf(c: HttpContext): string | undefined {
  const fromQuery = new URLSearchParams(c.search).get('token')
  const fromHeader = c.req.headers['upload-token']
  return fromQuery ?? (typeof fromHeader === 'string' ? fromHeader : undefined)
}

/**
 * Checks the token of an upload endpoint (docs/api.md, Upload links): 401 when missing,
 * malformed, forged or expired, or when its user no longer exists or is inactive; 403 when
 * the user lost `file.create`; 404 when its directory was deleted.
 */
export async function checkUploadToken(c: HttpContext): Promise<UploadTarget> {
  const token = tokenOf(c)
  if (!token) throw refused('This endpoint needs the token of an upload link (POST /files/upload_links).')
  const check = verifyToken<UploadGrant>(c.services.secret, PURPOSE, token)
  if (!check.ok) {
    throw refused(
      check.problem === 'expired'
        ? 'The upload link expired: ask for a new one (POST /files/upload_links).'
        : 'The upload token is not valid: ask for a new upload link (POST /files/upload_links).',
    )
  }
  const { u: username, d: slug } = check.payload
  const user = typeof username === 'string' ? await c.services.ports.get('credentials').findByUsername(username) : null
  if (!user || !user.isActive) throw refused('The user of this upload link cannot upload any more.')
  if (!c.authz.hasProfileFlag(user, 'file.create')) {
    throw forbidden('The user of this upload link no longer holds the "file.create" permission of their profile.')
  }
  const uploader: Uploader = { id: user.id, username: user.username, platformId: user.platformId }
  const directory = typeof slug === 'string' ? await directoryOf(c, user.id, slug) : null
  return { uploader, directory: directory && { id: directory.id, slug: directory.slug }, expiresAt: check.expiresAt }
}

/** 403 when an upload names a directory (`folder`) other than the one its link is for. */
export function requireSameDirectory(target: UploadTarget, folder: unknown): void {
  if (folder === undefined || folder === '') return
  if (folder !== (target.directory?.slug ?? null)) {
    throw forbidden(
      `This upload link uploads into ${target.directory ? `the directory "${target.directory.slug}"` : 'the root directory'} only.`,
    )
  }
}
