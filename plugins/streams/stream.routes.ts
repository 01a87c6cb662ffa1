import { forbidden, type HttpContext, invalid, reply, type Router } from '../../src/kernel/index.js'
import { objectAccessesHandler, objectAccessesPermission } from '../identity/index.js'
import { type MediaView, mediaFromPath, mediaRef } from '../media/index.js'
import { readStreamFields } from './stream.fields.js'
import { STREAM_KIND, requireOnStream, seesStream } from './stream.lookup.js'
import { type StreamFilter, type StreamView, streamQueries } from './stream.queries.js'
import { createStream, deleteStream, updateStream } from './stream.service.js'
import { streamInfoXml, streamListXml } from './stream.xml.js'
import type { StreamsDeps } from './streams.deps.js'

const info = async (c: HttpContext, id: number, status: number) =>
  reply.xml(status, streamInfoXml(c.links, (await streamQueries.byId(c.reader, id))!))

/**
 * The stream a `parent_stream` field names: one the caller sees, in the same media, and,
 * when `moving` a stream, neither that stream nor one below it (no cycles). 412 otherwise;
 * a stream the caller may not see is reported like a missing one.
 */
async function parentFor(c: HttpContext, media: MediaView, slug: string, moving?: StreamView): Promise<StreamView> {
  const parent = await streamQueries.bySlug(c.reader, slug)
  if (!parent || !(await seesStream(c, parent))) {
    throw invalid({ parent_stream: `there is no stream "${slug}"` })
  }
  if (parent.mediaId !== media.id) throw invalid({ parent_stream: 'is a stream of another media' })
  if (moving) {
    if (parent.id === moving.id) throw invalid({ parent_stream: 'is the stream itself: a stream cannot hold itself' })
    const below = await streamQueries.subtree(c.reader, [moving.id])
    if (below.includes(parent.id)) {
      throw invalid({ parent_stream: 'is below this stream: moving it there would make a cycle' })
    }
  }
  return parent
}

/** Streams of a media: list, create; one stream: info, partial update (201, as the spec shows), delete. */
export function streamRoutes(r: Router, deps: StreamsDeps): void {
  const { emit, paths } = deps
  r.get(
    '/media/:media/streams',
    async (c) => {
      const media = await mediaFromPath(c, 'media.view')
      const ref = mediaRef(media)
      const withHidden = await c.authz.can(c.principal, 'stream.view_protected', ref)
      const filter: StreamFilter = {
        scope: await c.authz.scope(c.principal, STREAM_KIND, ref),
        withHidden,
        // view_protected granted on a stream shows the hidden streams at and below it, as their info does.
        protectedScope: withHidden
          ? undefined
          : await c.authz.grantedOn(c.principal, STREAM_KIND, `${STREAM_KIND}.view_protected`),
      }
      const reader = c.reader
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
      const form = await c.form()
      // Creating below a stream needs the right on that stream; at the top, on the media. The
      // right at the top is checked before the data, so a caller without it gets 403 whatever
      // they send (below a stream, the parent must be read from the data first).
      const sent = form.parent_stream
      const atTop = typeof sent !== 'string' || sent.trim() === ''
      if (atTop) await c.authz.requireWithin(c.principal, 'stream.create', mediaRef(media), { name: media.slug })
      const input = readStreamFields(c.fields(form, 'create'))
      const parent = input.parentStream ? await parentFor(c, media, input.parentStream) : null
      if (parent) await requireOnStream(c, parent, 'stream.create', true)
      const id = await createStream(c.em, media.id, input as Parameters<typeof createStream>[2], parent?.id ?? null)
      return info(c, id, 201)
    },
    { permission: 'media.view, then stream.create on the media (or on the parent_stream, which the caller must see)' },
  )

  r.get('/stream/:stream', async (c) => info(c, (await paths.fromPath(c, 'stream.view')).id, 200), {
    permission:
      'stream.view on the stream (and stream.view_protected when it, or a stream above it, is hidden or draft)',
  })

  r.put(
    '/stream/:stream',
    async (c) => {
      const stream = await paths.fromPath(c, 'stream.edit')
      const changes = readStreamFields(c.fields(await c.form(), 'update'))
      const media = { id: stream.mediaId } as MediaView
      const parent = changes.parentStream ? await parentFor(c, media, changes.parentStream, stream) : null
      const parentId = changes.parentStream === undefined ? undefined : (parent?.id ?? null)
      // Moving a stream puts it where the caller creates it: stream.create on the new parent, or
      // on the media for the top (as POST asks), or an edit right would place streams anywhere.
      if (parentId !== undefined && parentId !== stream.parentId) {
        if (parent) await requireOnStream(c, parent, 'stream.create', true)
        else if (!(await c.authz.can(c.principal, 'stream.create', mediaRef(media)))) {
          throw forbidden('This needs the "stream.create" permission.')
        }
      }
      await updateStream(c.em, stream, changes, parentId)
      return info(c, stream.id, 201)
    },
    {
      permission:
        'stream.edit on the stream (seen as for info); moving it: stream.create on the new parent_stream, which the caller must see (on the media for the top)',
    },
  )

  r.delete(
    '/stream/:stream',
    async (c) => {
      const stream = await paths.fromPath(c, 'stream.delete')
      await deleteStream(emit, c.em, stream)
      return reply.noContent()
    },
    { permission: 'stream.delete on the stream (seen as for info); deletes its sub-streams and resources' },
  )

  const accesses = objectAccessesHandler(STREAM_KIND, 'stream')
  r.get(
    '/stream/:stream/accesses',
    async (c) => {
      // Seen as for info first: a hidden or draft stream stays a 404 without stream.view_protected.
      await paths.fromPath(c, 'stream.view')
      return accesses(c)
    },
    { permission: `${objectAccessesPermission(STREAM_KIND)}; seen as for info (hidden and draft streams)` },
  )
}
