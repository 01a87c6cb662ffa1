import { type HttpContext, forbidden, invalid, notFound } from '../../src/kernel/index.js'
import { fileQueries } from './file.queries.js'
import type { DirectoryView, FileView } from './files.types.js'

/**
 * The file named by `:file`, when it belongs to the caller: files are private to their
 * owner (API-DECISIONS: Authorization), so anyone else's, administrators' included, is 404.
 */
export async function ownFile(c: HttpContext): Promise<FileView> {
  const slug = c.param('file')
  const file = await fileQueries.fileBySlug(c.reader, slug)
  if (!file || file.userId !== c.principal.id) throw notFound(`No file "${slug}".`)
  return file
}

/** A directory of `userId` by slug, or 404 (also for anyone else's). */
export async function directoryOf(c: HttpContext, userId: number, slug: string): Promise<DirectoryView> {
  const directory = await fileQueries.directoryBySlug(c.reader, slug)
  if (!directory || directory.userId !== userId) throw notFound(`No directory "${slug}".`)
  return directory
}

/** A field naming the root directory, which has no slug ('/' is never part of one): `folder=/`. */
export const ROOT_FOLDER = '/'

/**
 * The id of the caller's directory named by a field (`folder`, `parent`): null for the root (`/`); a slug that is
 * not one of their directories is a wrong field, 412, not a missing page.
 */
export async function folderField(c: HttpContext, field: string, slug: string): Promise<number | null> {
  if (slug === ROOT_FOLDER) return null
  const directory = await fileQueries.directoryBySlug(c.reader, slug)
  if (!directory || directory.userId !== c.principal.id) throw invalid({ [field]: `you have no directory "${slug}"` })
  return directory.id
}

/** The directory named by `:directory`, when it belongs to the caller (404 otherwise). */
export const ownDirectory = (c: HttpContext): Promise<DirectoryView> =>
  directoryOf(c, c.principal.id, c.param('directory'))

/** 403 unless the caller's profile holds `flag` (file.create, file.edit, file.delete, folder.create). */
export function requireFileFlag(c: HttpContext, flag: string): void {
  if (!c.authz.hasProfileFlag(c.principal, flag)) {
    throw forbidden(`This needs the "${flag}" permission of your profile.`)
  }
}
