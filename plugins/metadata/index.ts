import { definePlugin } from '../../src/kernel/index.js'
import { MetadataDefinitionEntity } from './metadata.entity.js'
import { metadataRoutes } from './metadata.routes.js'
import init from './migrations/20261122-metadata-init.js'
import './metadata.events.js'

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
  migrations: [init],
  register(ctx) {
    ctx.routes((r) => metadataRoutes(r, ctx.emit))
    // The foreign key cascades too; deleting explicitly keeps the outcome independent of it.
    ctx.on('platform.deleting', async ({ em, platform }) => {
      await em.nativeDelete(MetadataDefinitionEntity, { platform })
    })
  },
})
