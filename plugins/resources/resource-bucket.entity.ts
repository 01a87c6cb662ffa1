import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Stream, Visibility } from '../streams/index.js'

/**
 * How many resources of a stream, of one visibility, have ids in one bucket of 1,024
 * (`id >> 10`). Written by triggers on `resources` only (migrations/20270128-resources-buckets.ts),
 * read by the stream's count and deep pages (resource.queries.ts); mapped so that the schema
 * check knows the table.
 */
export interface ResourceBucket {
  stream: Stream
  visibility: Visibility
  bucket: number
  n: number
}

export const ResourceBucketEntity = new EntitySchema<ResourceBucket>({
  name: 'ResourceBucket',
  tableName: 'resource_buckets',
  properties: {
    stream: { ...cascadingReference('Stream'), primary: true },
    visibility: { type: 'string', length: 16, primary: true },
    bucket: { type: 'integer', primary: true },
    n: { type: 'integer' },
  },
})
