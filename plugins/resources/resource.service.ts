import {
  type EntityManager,
  type FieldReader,
  type HttpContext,
  type Emit,
  forbidden,
  freeSlug,
  isInstanceAdmin,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { type FileView, fileQueries } from '../files/index.js'
import { type MetadataDefinitionView, type MetadataValue, checkMetadataValues } from '../metadata/index.js'
import { type Resource, ResourceEntity } from './resource.entity.js'
import type { ResourceAnnounced } from './resource.events.js'
import type { ResourceView } from './resource.queries.js'
import type { ResourceInput } from './resource.fields.js'
import { RESOURCE_KIND } from './resource.lookup.js'

/** The profile flag that allows publishing files of a type (`file.publish_video`, ...). */
export const publishFlag = (type: string): string =>
  `file.publish_${['video', 'audio', 'image', 'document'].includes(type) ? type : 'binary'}`

/**
 * The file a `file` field names, once it may be published by the caller into a stream of
 * `platformId`: one of the caller's own files (files are private), of that platform, whose
 * encoding did not fail (any platform for installation administrators); failures go to `fields` (412). 403 without `file.publish_<type>`.
 */
export async function publishableFile(
  c: HttpContext,
  fields: FieldReader,
  slug: string,
  platformId: number,
): Promise<FileView | undefined> {
  const file = await fileQueries.fileBySlug(c.reader, slug)
  if (!file || file.userId !== c.principal.id) {
    fields.fail('file', `you have no file "${slug}" (only your own files can be published)`)
    return undefined
  }
  // Installation administrators work on every platform, with the files of their own.
  if (file.platformId !== platformId && !isInstanceAdmin(c.principal)) {
    fields.fail('file', 'is a file of another platform than the stream')
  } else if (file.encodingStatus === 'failed') {
    fields.fail(
      'file',
      `failed its encoding${file.encodingError ? ` (${file.encodingError})` : ''}: it cannot be published`,
    )
  } else if (!c.authz.hasProfileFlag(c.principal, publishFlag(file.type))) {
    throw forbidden(`This needs the "${publishFlag(file.type)}" permission of your profile.`)
  }
  return file
}

/**
 * Checks `metadata[<name>]` values for a resource of a file of `fileType`: as for files, and a
 * protected definition cannot be overridden on the resource (its value is the file's). Failures go
 * to `fields`; gives the values by definition id (null: clear the resource's own value).
 */
export function resourceMetadata(
  fields: FieldReader,
  definitions: readonly MetadataDefinitionView[],
  values: ResourceInput['metadata'],
  fileType: FileView['type'],
): Record<string, MetadataValue | null> {
  if (!values) return {}
  const check = checkMetadataValues(definitions, values as never, fileType)
  for (const [field, message] of Object.entries(check.errors)) fields.fail(field, message)
  const byName = new Map(definitions.map((definition) => [definition.name, definition]))
  const byId: Record<string, MetadataValue | null> = {}
  for (const [name, value] of Object.entries(check.values)) {
    const definition = byName.get(name)!
    if (definition.isProtected && value !== null) {
      fields.fail(`metadata[${name}]`, 'is protected: a resource shows the value set on its file, set it there')
    } else byId[String(definition.id)] = value
  }
  return byId
}

/** Applies metadata changes by definition id (null removes the resource's own value). */
function applyMetadata(
  current: Record<string, MetadataValue>,
  changes: Record<string, MetadataValue | null>,
): Record<string, MetadataValue> {
  const metadata = { ...current }
  for (const [id, value] of Object.entries(changes)) {
    if (value === null) delete metadata[id]
    else metadata[id] = value
  }
  return metadata
}

/** Publishes a file into a stream: a new resource, announced as `resource.created`. */
export function createResource(
  emit: Emit,
  em: EntityManager,
  input: Required<Pick<ResourceInput, 'title' | 'visibility'>> & ResourceInput,
  file: Pick<FileView, 'id' | 'slug' | 'platformId'>,
  stream: { id: number; slug: string },
  metadata: Record<string, MetadataValue | null>,
): Promise<number> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const now = new Date()
      const resource = tx.create(ResourceEntity, {
        slug: await freeSlug(tx, ResourceEntity, input.title),
        title: input.title,
        subtitle: input.subtitle ?? '',
        description: input.description ?? '',
        publishedAt: input.publishedAt ?? now,
        visibility: input.visibility,
        views: 0,
        metadata: applyMetadata({}, metadata),
        file: file.id,
        stream: stream.id,
        createdAt: now,
        updatedAt: now,
      })
      await tx.flush()
      await emit('resource.created', {
        em: tx,
        resource: { ...announced(resource), platformId: file.platformId, streamSlug: stream.slug, fileSlug: file.slug },
      })
      return resource.id
    }),
  )
}

/** The names of the contract's fields an update sends (what `resource.updated` says changed). */
const FIELD_NAMES: Record<string, string> = { publishedAt: 'published_at' }

/**
 * Applies a partial update, announced as `resource.updated`; `file` re-points the resource to
 * another (checked) file.
 */
export function updateResource(
  emit: Emit,
  em: EntityManager,
  current: Pick<ResourceView, 'id' | 'platformId' | 'streamSlug' | 'fileSlug'>,
  changes: ResourceInput,
  file: Pick<FileView, 'id' | 'slug'> | undefined,
  metadata: Record<string, MetadataValue | null>,
): Promise<void> {
  const fileId = file?.id
  return transaction(em, async (tx) => {
    const resource = await tx.findOneOrFail(ResourceEntity, { id: current.id })
    if (changes.title !== undefined) resource.title = changes.title
    if (changes.subtitle !== undefined) resource.subtitle = changes.subtitle ?? ''
    if (changes.description !== undefined) resource.description = changes.description ?? ''
    // Sent empty: back to the default, now. A resource always shows a publication date (clients parse it).
    if (changes.publishedAt !== undefined) resource.publishedAt = changes.publishedAt ?? new Date()
    if (changes.visibility !== undefined) resource.visibility = changes.visibility
    if (fileId !== undefined) resource.file = tx.getReference('StoredFile', fileId) as never
    resource.metadata = applyMetadata(resource.metadata, metadata)
    resource.updatedAt = new Date()
    await tx.flush()
    const changed = Object.keys(changes)
      .filter((field) => changes[field as keyof ResourceInput] !== undefined)
      .map((field) => FIELD_NAMES[field] ?? field)
    await emit('resource.updated', {
      em: tx,
      resource: {
        ...announced(resource),
        platformId: current.platformId,
        streamSlug: current.streamSlug,
        fileSlug: file?.slug ?? current.fileSlug,
      },
      changed,
    })
  })
}

const announced = (resource: Pick<Resource, 'id' | 'slug' | 'title'>) => ({
  id: resource.id,
  slug: resource.slug,
  title: resource.title,
})

/** Deletes resources and what they hold (widgets, the accesses on them) inside `tx`. */
export async function deleteResourcesIn(emit: Emit, tx: EntityManager, ids: number[]): Promise<void> {
  if (ids.length === 0) return
  const resources = await announcedOf(tx, ids)
  await emit('resource.deleting', { em: tx, ids })
  await emit('authz.objects-deleted', { em: tx, kind: RESOURCE_KIND, ids })
  await tx.nativeDelete(ResourceEntity, { id: { $in: ids } })
  await emit('resource.deleted', { em: tx, resources })
}

/** Deletes one resource, in one transaction. */
export function deleteResource(emit: Emit, em: EntityManager, id: number): Promise<void> {
  return transaction(em, (tx) => deleteResourcesIn(emit, tx, [id]))
}

/** Drops the values of a deleted metadata definition from the resources of its platform. */
export async function dropResourceMetadata(tx: EntityManager, definition: MetadataDefinitionView): Promise<void> {
  const key = String(definition.id)
  const resources = await tx.find(ResourceEntity, { file: { platform: definition.platformId } })
  for (const resource of resources) {
    if (!(key in resource.metadata)) continue
    const { [key]: _dropped, ...rest } = resource.metadata
    resource.metadata = rest
  }
  await tx.flush()
}

/** At most this many resource ids per statement (well below the bound variables SQLite allows). */
export const IDS_PER_QUERY = 500

/** What `resource.deleted` tells of resources about to go, read in the deleting transaction. */
async function announcedOf(tx: EntityManager, ids: readonly number[]): Promise<ResourceAnnounced[]> {
  const out: ResourceAnnounced[] = []
  for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
    const slice = ids.slice(start, start + IDS_PER_QUERY)
    const rows = await tx.execute<Record<string, unknown>[]>(
      `select r.id, r.slug, r.title, f.platform_id, s.slug as stream_slug, f.slug as file_slug
        from resources r join files f on f.id = r.file_id join streams s on s.id = r.stream_id
        where r.id in (${slice.map(() => '?').join(', ')}) order by r.id`,
      slice,
    )
    for (const row of rows) {
      out.push({
        id: Number(row.id),
        slug: String(row.slug),
        title: String(row.title),
        platformId: Number(row.platform_id),
        streamSlug: String(row.stream_slug),
        fileSlug: String(row.file_slug),
      })
    }
  }
  return out
}
