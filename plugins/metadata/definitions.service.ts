import { type ProcessCache, type Reader, serviceKey } from '../../src/kernel/index.js'
import { metadataQueries } from './metadata.queries.js'
import type { MetadataDefinitionView } from './metadata.types.js'

/** A platform's metadata definitions, for the answers that name values (`METADATA_DEFINITIONS`). */
export interface MetadataDefinitions {
  /** The definitions of a platform, oldest first (committed data). */
  ofPlatform(platformId: number): Promise<readonly MetadataDefinitionView[]>
}

/** The metadata plugin's definitions, for the plugins that depend on it. */
export const METADATA_DEFINITIONS = serviceKey<MetadataDefinitions>('metadata.definitions')

/**
 * Each platform's definitions kept in `cache` until a definition or a platform changes (its
 * slug is in them): every answer showing a resource names its values, and definitions change
 * rarely. Validation of writes reads them afresh (`metadataQueries`).
 */
export function metadataDefinitions(
  reader: Reader,
  cache: ProcessCache<MetadataDefinitionView[]>,
): MetadataDefinitions {
  return {
    ofPlatform: (platformId) => cache.get(String(platformId), () => metadataQueries.ofPlatform(reader, platformId)),
  }
}
