import { type HttpContext, reply, type Router } from '../../src/kernel/index.js'
import { fileQueries, wantsToken } from '../files/index.js'
import { objectAccessesHandler, objectAccessesPermission } from '../identity/index.js'
import { metadataQueries } from '../metadata/index.js'
import { streamRef } from '../streams/index.js'
import { readResourceFields } from './resource.fields.js'
import { RESOURCE_KIND, resourceFromPath } from './resource.lookup.js'
import { type ResourceView, resourceQueries } from './resource.queries.js'
import {
  createResource,
  deleteResource,
  publishableFile,
  resourceMetadata,
  updateResource,
} from './resource.service.js'
import { resourceInfoXml, resourceListXml } from './resource.xml.js'
import type { ResourcesDeps } from './resources.deps.js'

/** Resources of a stream: list, publish; one resource: info, partial update, delete. */
export function resourceRoutes(r: Router, deps: ResourcesDeps): void {
  const { config, emit, streams } = deps
  const describe = (c: HttpContext, items: readonly ResourceView[]) =>
    deps.details.describe(c, items, { withToken: wantsToken(c), tokenTtl: config.token_ttl })

  /** The info answer of a resource, read again by id unless the caller has it as committed (info). */
  const info = async (c: HttpContext, which: number | ResourceView, status: number) => {
    const resource = typeof which === 'number' ? (await resourceQueries.byId(c.reader, which))! : which
    const details = await describe(c, [resource])
    return reply.xml(status, resourceInfoXml(c.links, resource, details.get(resource.id)!))
  }

  r.get(
    '/stream/:stream/resources',
    async (c) => {
      const stream = await streams.fromPath(c, 'stream.view')
      const ref = streamRef(stream)
      const reader = c.reader
      const withHidden = await c.authz.can(c.principal, 'resource.view_protected', ref)
      // Inside a hidden or draft stream no resource is public: without resource.view_protected, info
      // answers 404 for each (resourceFromPath), so the list shows none of them either.
      const shown = withHidden || !(await c.authz.isHidden(ref))
      const filter = {
        scope: shown ? await c.authz.scope(c.principal, RESOURCE_KIND, ref) : new Set<number>(),
        withHidden,
      }
      const items = await c.listCounted((page) =>
        resourceQueries.counted(reader, stream.id, filter, page.offset, page.limit),
      )
      return reply.xml(200, resourceListXml(c.links, stream.slug, items, await describe(c, items)))
    },
    {
      permission:
        'stream.view on the stream (seen as for stream info); lists the resources the caller may view (resource.view), hidden and draft ones only with resource.view_protected',
    },
  )

  r.post(
    '/stream/:stream/resources',
    async (c) => {
      const stream = await streams.fromPath(c, 'resource.create', { within: true })
      const form = await c.form()
      const fields = c.fields(form, 'create')
      const input = readResourceFields(fields, form)
      const file = input.file ? await publishableFile(c, fields, input.file, stream.platformId) : undefined
      // The file's platform names the values, as for the file's own (they differ only for installation administrators).
      const definitions = file ? await metadataQueries.ofPlatform(c.reader, file.platformId) : []
      const metadata = file ? resourceMetadata(fields, definitions, input.metadata, file.type) : {}
      fields.done()
      const id = await createResource(
        emit,
        c.em,
        input as Parameters<typeof createResource>[2],
        file!,
        stream,
        metadata,
      )
      return info(c, id, 201)
    },
    {
      permission:
        "stream.view, then resource.create on the stream; the file must be one of the caller's own, and their profile must hold file.publish_<type> (video, audio, image, document; binary for others)",
    },
  )

  r.get('/resource/:resource', async (c) => info(c, await resourceFromPath(c, 'resource.view'), 200), {
    permission: 'resource.view on the resource (and resource.view_protected unless it and its streams are visible)',
  })

  r.put(
    '/resource/:resource',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.edit')
      const form = await c.form()
      const fields = c.fields(form, 'update')
      const changes = readResourceFields(fields, form)
      const file = changes.file ? await publishableFile(c, fields, changes.file, resource.platformId) : undefined
      const current = file ?? (await fileQueries.fileById(c.reader, resource.fileId))!
      const definitions = await metadataQueries.ofPlatform(c.reader, resource.platformId)
      const type = current.type
      const metadata = resourceMetadata(fields, definitions, changes.metadata, type)
      fields.done()
      await updateResource(emit, c.em, resource, changes, file, metadata)
      return info(c, resource.id, 200)
    },
    {
      permission:
        "resource.edit on the resource (seen as for info); a new file must be one of the caller's own, with file.publish_<type>",
    },
  )

  r.delete(
    '/resource/:resource',
    async (c) => {
      const resource = await resourceFromPath(c, 'resource.delete')
      await deleteResource(emit, c.em, resource.id)
      return reply.noContent()
    },
    { permission: 'resource.delete on the resource (seen as for info)' },
  )

  const accesses = objectAccessesHandler(RESOURCE_KIND, 'resource')
  r.get(
    '/resource/:resource/accesses',
    async (c) => {
      // Seen as for info first: a hidden resource is 404 here too, not a 403 telling it exists.
      await resourceFromPath(c, 'resource.view')
      return accesses(c)
    },
    { permission: objectAccessesPermission(RESOURCE_KIND) },
  )
}
