import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { PLATFORM_KIND } from '../platforms/index.js'
import { metadataQueries } from './metadata.queries.js'
import type { MetadataDefinitionView } from './metadata.types.js'

/** The profile flag that allows creating, changing and deleting metadata definitions. */
export const MANAGE_FLAG = 'metadata.manage'

/**
 * The definition named by the `:metadata` path parameter (committed data), once the caller
 * may `read` it (`platform.view` on its platform: every member who sees the platform reads
 * its definitions, since they fill in the values) or `manage` it (`platform.view`, then the
 * profile flag `metadata.manage`). 404 when the caller may not see it, 403 when they may
 * see but not manage it.
 */
export async function definitionFromPath(c: HttpContext, need: 'read' | 'manage'): Promise<MetadataDefinitionView> {
  const slug = c.param('metadata')
  const definition = await metadataQueries.bySlug(c.reader, slug)
  if (!definition) throw notFound(`No metadata "${slug}".`)
  const describe = { name: slug, kind: 'metadata' }
  if (need === 'manage') await c.authz.requireProfile(c.principal, MANAGE_FLAG, definition.platformId, describe)
  else await c.authz.require(c.principal, 'platform.view', { kind: PLATFORM_KIND, id: definition.platformId }, describe)
  return definition
}
