import { reply, type Router } from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { readMetadataFields } from './metadata.fields.js'
import { MANAGE_FLAG, definitionFromPath } from './metadata.lookup.js'
import { metadataQueries } from './metadata.queries.js'
import { createDefinition, deleteDefinition, updateDefinition } from './metadata.service.js'
import { metadataInfoXml, metadataListXml } from './metadata.xml.js'
import type { MetadataDeps } from './metadata.deps.js'

/** Metadata definitions: read by whoever sees the platform, managed with the profile flag `metadata.manage`. */
export function metadataRoutes(r: Router, deps: MetadataDeps): void {
  const { emit } = deps
  r.get(
    '/platform/:platform/metadata',
    async (c) => {
      const platform = await platformFromPath(c, 'platform.view')
      const reader = c.reader
      const items = await c.list(await metadataQueries.count(reader, platform.id), (page) =>
        metadataQueries.page(reader, platform.id, page.offset, page.limit),
      )
      return reply.xml(200, metadataListXml(c.links, platform.slug, items))
    },
    { permission: 'platform.view on the platform (no profile flag: whoever sees the platform reads its definitions)' },
  )

  r.post(
    '/platform/:platform/metadata',
    async (c) => {
      const platform = await platformFromPath(c, MANAGE_FLAG, { profile: true })
      const input = readMetadataFields(c.fields(await c.form(), 'create'))
      return reply.xml(201, metadataInfoXml(c.links, await createDefinition(c.em, platform.id, input)))
    },
    { permission: `platform.view on the platform, and profile ${MANAGE_FLAG}` },
  )

  r.get(
    '/metadata/:metadata',
    async (c) => reply.xml(200, metadataInfoXml(c.links, await definitionFromPath(c, 'read'))),
    {
      permission: "platform.view on the definition's platform (no profile flag)",
    },
  )

  r.put(
    '/metadata/:metadata',
    async (c) => {
      const current = await definitionFromPath(c, 'manage')
      const changes = readMetadataFields(c.fields(await c.form(), 'update'), current)
      return reply.xml(200, metadataInfoXml(c.links, await updateDefinition(c.em, current, changes)))
    },
    { permission: `platform.view on the definition's platform, and profile ${MANAGE_FLAG}` },
  )

  r.delete(
    '/metadata/:metadata',
    async (c) => {
      await deleteDefinition(emit, c.em, await definitionFromPath(c, 'manage'))
      return reply.noContent()
    },
    { permission: `platform.view on the definition's platform, and profile ${MANAGE_FLAG}` },
  )
}
