import { type HttpContext, forbidden, notFound } from '../../src/kernel/index.js'
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

/** The directory named by `:directory`, when it belongs to the caller (404 otherwise). */
export const ownDirectory = (c: HttpContext): Promise<DirectoryView> =>
  directoryOf(c, c.principal.id, c.param('directory'))

/** 403 unless the caller's profile holds `flag` (file.create, file.edit, file.delete, folder.create). */
export function requireFileFlag(c: HttpContext, flag: string): void {
  if (!c.authz.hasProfileFlag(c.principal, flag)) {
    throw forbidden(`This needs the "${flag}" permission of your profile.`)
  }
}
