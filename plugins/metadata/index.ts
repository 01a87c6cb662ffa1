import { definePlugin } from '../../src/kernel/index.js'
import { METADATA_DEFINITIONS, metadataDefinitions } from './definitions.service.js'
import type { MetadataDeps } from './metadata.deps.js'
import { MetadataDefinitionEntity } from './metadata.entity.js'
import type { MetadataDefinitionView } from './metadata.types.js'
import { metadataRoutes } from './metadata.routes.js'
import init from './migrations/20261122-metadata-init.js'
import watch from './migrations/20270127-metadata-watch.js'
import './metadata.events.js'

export { METADATA_DEFINITIONS, type MetadataDefinitions } from './definitions.service.js'
export { type MetadataDefinition, MetadataDefinitionEntity } from './metadata.entity.js'
export { metadataQueries } from './metadata.queries.js'
export { metadataValuesXml } from './metadata.xml.js'
export {
  FILE_TYPES,
  METADATA_TYPES,
  type FileType,
  type MetadataDefinitionView,
  type MetadataType,
  type MetadataValue,
} from './metadata.types.js'
export {
  LONGVARCHAR_MAX,
  VARCHAR_MAX,
  checkMetadataValues,
  type MetadataCheck,
  type MetadataRule,
} from './metadata.values.js'

/**
 * Metadata definitions, declared per platform: `GET/POST /platform/<slug>/metadata`,
 * `GET/PUT/DELETE /metadata/<slug>`. Their values live with files and resources (file store),
 * which checks them with `checkMetadataValues` and drops them on `metadata.deleted`.
 */
export default definePlugin({
  name: 'metadata',
  dependsOn: ['platforms', 'identity'],
  entities: [MetadataDefinitionEntity],
  migrations: [init, watch],
  register(ctx) {
    const cache = ctx.cache<MetadataDefinitionView[]>({ tables: ['metadata_definitions', 'platforms'] })
    ctx.expose(METADATA_DEFINITIONS, metadataDefinitions(ctx.reader, cache))
    const deps: MetadataDeps = { emit: ctx.emit }
    ctx.routes((r) => metadataRoutes(r, deps))
    // The foreign key cascades too; deleting explicitly keeps the outcome independent of it.
    ctx.on('platform.deleting', async ({ em, platform }) => {
      await em.nativeDelete(MetadataDefinitionEntity, { platform })
    })
  },
})
