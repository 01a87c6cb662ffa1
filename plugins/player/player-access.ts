import { type HttpContext, type Reader, notFound } from '../../src/kernel/index.js'
import { type ResourceView, isPublic, requireResourceGrant, resourceQueries } from '../resources/index.js'
import { streamQueries } from '../streams/index.js'

/** Whether the resource, or a stream above it, is a draft: not published at all, whatever the token. */
async function isDraft(reader: Reader, resource: ResourceView): Promise<boolean> {
  if (resource.visibility === 'draft') return true
  // Streams nest a few levels at most; a stored cycle is cut by `seen`.
  const seen = new Set<number>()
  for (let id: number | null = resource.streamId; id !== null && !seen.has(id);) {
    seen.add(id)
    const stream = await streamQueries.byId(reader, id)
    if (!stream) return false
    if (stream.visibility === 'draft') return true
    id = stream.parentId
  }
  return false
}

/**
 * The resource a player page plays, named by `slug`, once the request may play it: a public
 * one (visible, in visible streams) for anyone; a hidden one only with a resource token for
 * it in `?token=` (the kernel checked its signature and expiry: 401, 403; one of another
 * resource: 403); a draft one never. Anything else answers 404, as an unknown slug does, so
 * the page tells nothing about what is not public.
 */
export async function playableResource(c: HttpContext, slug: string): Promise<ResourceView> {
  const granted = c.token ? requireResourceGrant(c, slug) : undefined
  const reader = c.reader
  const resource = await resourceQueries.bySlug(reader, slug)
  const missing = notFound(`No resource "${slug}" to play here.`)
  if (!resource || (granted !== undefined && granted !== resource.id)) throw missing
  if (await isDraft(reader, resource)) throw missing
  if (granted === undefined && !(await isPublic(c, resource))) throw missing
  return resource
}
