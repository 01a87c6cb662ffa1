import { type HttpContext, HttpError, type Router, notFound } from '../../src/kernel/index.js'
import { type ChannelOffers, channelQueries } from '../channels/index.js'
import { CACHE, attachment, mountMedia, renditionQueries, serveStored } from '../encoding/index.js'
import { type FileView, fileQueries } from '../files/index.js'
import { subtitleQueries } from '../subtitles/index.js'
import { isPublic, resourceFromPath } from './resource.lookup.js'
import type { ResourcesConfig } from './resources.config.js'
import { type ResourceView, resourceQueries } from './resource.queries.js'
import { RESOURCE_TOKEN_PURPOSE, requireResourceGrant } from './resource-token.js'
import type { ResourcesDeps } from './resources.deps.js'

export const RESOURCE_MEDIA_PERMISSION =
  'whoever may view the resource (Digest, as for resource info), or anyone holding a media token of the resource (`?token=`, from an answer asked `with-token`)'

/** The permission of the media anyone may fetch once the resource is published (resources.public_assets). */
export const PUBLIC_MEDIA_PERMISSION = `anyone, once the resource is published (visible, in visible streams, in a media with an online channel; resources.public_assets); otherwise ${RESOURCE_MEDIA_PERMISSION}`

/**
 * The resource a request without credentials nor token asks, when its media are public: it is
 * visible in visible streams, its media has an online channel, and the operator serves public
 * assets. Checked at each request, so unpublishing, hiding or deleting stops it at once. Any
 * other case is a 401 (with the Digest challenge): the same for a resource that does not
 * exist, so nothing is learnt without credentials.
 */
async function publicResource(c: HttpContext, config: ResourcesConfig): Promise<ResourceView> {
  const resource = config.public_assets ? await resourceQueries.bySlug(c.reader, c.param('resource')) : undefined
  if (
    resource &&
    (await isPublic(c, resource)) &&
    (await channelQueries.onlineTypes(c.reader, resource.mediaId)).length > 0
  ) {
    return resource
  }
  throw new HttpError(401, 'Authentication required: use HTTP Digest, or a link asked with-token.')
}

/**
 * The resource whose media a request asks: one the caller may view, the one its token opens,
 * or, without either, a published one (`publicResource`).
 */
async function mediaResource(c: HttpContext, config: ResourcesConfig): Promise<ResourceView> {
  if (!c.token && !c.user) return publicResource(c, config)
  if (!c.token) return resourceFromPath(c, 'resource.view')
  const slug = c.param('resource')
  const id = requireResourceGrant(c, slug)
  const resource = await resourceQueries.byId(c.reader, id)
  if (!resource || resource.slug !== slug) throw notFound(`No resource "${slug}".`)
  return resource
}

/** The resource a request asks (as `mediaResource` decides) and the file it publishes. */
async function publication(
  c: HttpContext,
  config: ResourcesConfig,
): Promise<{ resource: ResourceView; file: FileView }> {
  const resource = await mediaResource(c, config)
  const file = await fileQueries.fileById(c.reader, resource.fileId)
  if (!file) throw notFound(`No resource "${resource.slug}".`)
  return { resource, file }
}

/**
 * Whether some online channel of the resource's media offers the uploaded original (`source`:
 * an api channel). The original is what the owner uploaded, at full size: a player's token
 * (the web channel's links) must not open it.
 */
async function offersSource(
  offers: ChannelOffers,
  c: HttpContext,
  resource: ResourceView,
  file: FileView,
): Promise<boolean> {
  const [offer, renditions] = await Promise.all([
    offers.of(c.reader, resource.mediaId),
    renditionQueries.ofFile(c.reader, file.id),
  ])
  return offer.flavors(file, renditions).some((choice) => choice.source === 'original')
}

/**
 * The media of a resource, under its own address (the URL shapes of the real answers):
 * thumbnail, snapshots, flavors, HLS, subtitles as WebVTT, and the uploaded original.
 */
export function resourceMediaRoutes(r: Router, deps: ResourcesDeps): void {
  const { config, storage, offers } = deps
  const publishedFile = async (c: HttpContext): Promise<FileView> => (await publication(c, config)).file
  mountMedia(r, storage, deps.renditions, {
    prefix: '/resource/:resource',
    resolve: publishedFile,
    permission: PUBLIC_MEDIA_PERMISSION,
    tokenPurpose: RESOURCE_TOKEN_PURPOSE,
    anonymous: true,
  })

  r.get(
    '/resource/:resource/subtitles/:subtitle',
    async (c) => {
      const file = await publishedFile(c)
      const subtitle = await subtitleQueries.one(c.reader, file.id, c.param('subtitle'))
      if (!subtitle) throw notFound(`No subtitle "${c.param('subtitle')}".`)
      // WebVTT whatever was sent (SRT is converted): players read WebVTT.
      return serveStored(storage, c, subtitle.vttKey, 'text/vtt; charset=utf-8', CACHE.media)
    },
    {
      permission: PUBLIC_MEDIA_PERMISSION,
      produces: 'text/vtt',
      tokenPurpose: RESOURCE_TOKEN_PURPOSE,
      anonymous: true,
    },
  )

  r.get(
    '/resource/:resource/source',
    async (c) => {
      const { resource, file } = await publication(c, config)
      if (!(await offersSource(offers, c, resource, file))) {
        throw notFound(
          `Resource "${resource.slug}" offers no source: no online channel of its media (an api channel) offers it.`,
        )
      }
      const answer = await serveStored(storage, c, file.storageKey, file.mimeType, CACHE.media)
      return { ...answer, headers: { ...answer.headers, 'Content-Disposition': attachment(file.name) } }
    },
    // The uploaded original is never a public asset: Digest or a token.
    {
      permission: RESOURCE_MEDIA_PERMISSION,
      produces: 'application/octet-stream',
      tokenPurpose: RESOURCE_TOKEN_PURPOSE,
    },
  )
}
