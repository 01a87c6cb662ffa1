import { type HttpContext, type Router, invalid, reply } from '../../src/kernel/index.js'
import { objectAccessesHandler, objectAccessesPermission } from '../identity/index.js'
import { type MediaView, mediaFromPath, mediaRef } from '../media/index.js'
import { readStreamFields } from './stream.fields.js'
import { STREAM_KIND, requireOnStream, seesStream, streamFromPath } from './stream.lookup.js'
import { type StreamView, streamQueries } from './stream.queries.js'
import { createStream, deleteStream, updateStream } from './stream.service.js'
import { streamInfoXml, streamListXml } from './stream.xml.js'

const info = async (c: HttpContext, id: number, status: number) =>
  reply.xml(status, streamInfoXml(c.links, (await streamQueries.byId(c.services.reader, id))!))

/**
 * The stream a `parent_stream` field names: one the caller sees, in the same media, and,
 * when `moving` a stream, neither that stream nor one below it (no cycles). 412 otherwise;
 * a stream the caller may not see is reported like a missing one.
 */
async function parentFor(c: HttpContext, media: MediaView, slug: string, moving?: StreamView): Promise<StreamView> {
  const parent = await streamQueries.bySlug(c.services.reader, slug)
  if (!parent || !(await seesStream(c, parent))) {
    throw invalid({ parent_stream: `there is no stream "${slug}"` })
  }
  if (parent.mediaId !== media.id) throw invalid({ parent_stream: 'is a stream of another media' })
  if (moving) {
    if (parent.id === moving.id) throw invalid({ parent_stream: 'is the stream itself: a stream cannot hold itself' })
    const below = await streamQueries.subtree(c.services.reader, [moving.id])
    if (below.includes(parent.id)) {
      throw invalid({ parent_stream: 'is below this stream: moving it there would make a cycle' })
    }
  }
  return parent
}

/** Streams of a media: list, create; one stream: info, partial update (201, as the spec shows), delete. */
export function streamRoutes(r: Router): void {
  r.get(
    '/media/:media/streams',
    async (c) => {
      const media = await mediaFromPath(c, 'media.view')
      const ref = mediaRef(media)
      const filter = {
        scope: await c.authz.scope(c.principal, STREAM_KIND, ref),
        withHidden: await c.authz.can(c.principal, 'stream.view_protected', ref),
      }
      const reader = c.services.reader
      const items = await c.list(await streamQueries.count(reader, media.id, filter), (page) =>
        streamQueries.page(reader, media.id, filter, page.offset, page.limit),
      )
      return reply.xml(200, streamListXml(c.links, media.slug, items))
    },
    {
      permission:
        'media.view on the media; lists the streams the caller may view (stream.view), hidden and draft ones (and what they hold) only with stream.view_protected',
    },
  )

  r.post(
    '/media/:media/streams',
    async (c) => {
      const media = await mediaFromPath(c, 'media.view')
      const input = readStreamFields(c.fields(await c.form(), 'create'))
      const parent = input.parentStream ? await parentFor(c, media, input.parentStream) : null
      // Creating below a stream needs the right on that stream; at the top, on the media.
      if (parent) await requireOnStream(c, parent, 'stream.create', true)
      else await c.authz.requireWithin(c.principal, 'stream.create', mediaRef(media), { name: media.slug })
      const id = await createStream(c.em, media.id, input as Parameters<typeof createStream>[2], parent?.id ?? null)
      return info(c, id, 201)
    },
    { permission: 'media.view, then stream.create on the media (or on the parent_stream, which the caller must see)' },
  )

  r.get('/stream/:stream', async (c) => info(c, (await streamFromPath(c, 'stream.view')).id, 200), {
    permission:
      'stream.view on the stream (and stream.view_protected when it, or a stream above it, is hidden or draft)',
  })

  r.put(
    '/stream/:stream',
    async (c) => {
      const stream = await streamFromPath(c, 'stream.edit')
      const changes = readStreamFields(c.fields(await c.form(), 'update'))
      let parentId: number | null | undefined
      if (changes.parentStream === null) parentId = null
      else if (changes.parentStream !== undefined) {
        const media = { id: stream.mediaId } as MediaView
        parentId = (await parentFor(c, media, changes.parentStream, stream)).id
      }
      await updateStream(c.em, stream.id, changes, parentId)
      return info(c, stream.id, 201)
    },
    { permission: 'stream.edit on the stream (seen as for info); a new parent_stream must be one the caller sees' },
  )

  r.delete(
    '/stream/:stream',
    async (c) => {
      const stream = await streamFromPath(c, 'stream.delete')
      await deleteStream(c.services, c.em, stream.id)
      return reply.noContent()
    },
    { permission: 'stream.delete on the stream (seen as for info); deletes its sub-streams and resources' },
  )

  r.get('/stream/:stream/accesses', objectAccessesHandler(STREAM_KIND, 'stream'), {
    permission: objectAccessesPermission(STREAM_KIND),
  })
}
