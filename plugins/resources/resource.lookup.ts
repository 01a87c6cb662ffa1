import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { STREAM_KIND } from '../streams/index.js'
import { type ResourceView, resourceQueries } from './resource.queries.js'

/** The access-tree kind of resources (below streams). */
export const RESOURCE_KIND = 'resource'

/** The reference of a resource in the access tree. */
export const resourceRef = (resource: { id: number }) => ({ kind: RESOURCE_KIND, id: resource.id })

/** Whether a resource is public: visible itself, in streams that are all visible. */
export async function isPublic(c: HttpContext, resource: ResourceView): Promise<boolean> {
  return resource.visibility === 'visible' && !(await c.authz.isHidden({ kind: STREAM_KIND, id: resource.streamId }))
}

/**
 * The resource named by a path parameter (default `:resource`), once the caller may do
 * `flag` on it: 404 when they may not see it (`resource.view`, and `resource.view_protected`
 * unless it is public), 403 when they see it but may not do that.
 */
export async function resourceFromPath(c: HttpContext, flag: string, param = 'resource'): Promise<ResourceView> {
  const slug = c.param(param)
  const resource = await resourceQueries.bySlug(c.reader, slug)
  if (!resource) throw notFound(`No resource "${slug}".`)
  const hidden = !(await isPublic(c, resource))
  await c.authz.require(c.principal, flag, resourceRef(resource), { name: slug, kind: RESOURCE_KIND, hidden })
  return resource
}
