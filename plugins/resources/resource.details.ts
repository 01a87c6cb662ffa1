import { type Emit, type HttpContext, type Tokens, serviceKey } from '../../src/kernel/index.js'
import type { ChannelOffer, ChannelOffers, FlavorChoice } from '../channels/index.js'
import { type RenditionView, type ShownRenditions, thumbnailOf } from '../encoding/index.js'
import type { FileView, FileViews } from '../files/index.js'
import type { MetadataDefinitionView, MetadataDefinitions, MetadataValue } from '../metadata/index.js'
import type { FileSubtitles } from '../subtitles/index.js'
import type { ResourceExtras } from './resource.events.js'
import type { ResourceView } from './resource.queries.js'
import { resourceToken } from './resource-token.js'

/** Everything a resource's answers show beyond its own columns. */
export interface ResourceDetails {
  /** Seconds, from the renditions; null for files without one (documents, images). */
  duration: number | null
  /** Absolute URL of the thumbnail; '' while there is none. */
  thumbnail: string
  flavors: { name: string; url: string }[]
  players: { name: string; url: string }[]
  widgets: { name: string; code: string }[]
  /** Downloadable WebVTT (or the SRT's WebVTT version) under the resource's address. */
  subtitles: { language: string; href: string }[]
  /** The values shown: the file's, overridden by the resource's except for protected definitions. */
  metadata: Record<string, MetadataValue>
  /** The definitions of the resource's platform (to name the values). */
  definitions: readonly MetadataDefinitionView[]
}

/** The URLs of one resource's media, with `?token=` when asked `with-token`. */
class ResourceUrls {
  constructor(
    private readonly c: HttpContext,
    private readonly resource: ResourceView,
    private readonly token: string | undefined,
  ) {}

  url(segments: string[], query: Record<string, string> = {}): string {
    const params = new URLSearchParams(query)
    if (this.token) params.set('token', this.token)
    const search = params.toString()
    return this.c.links.url('resource', this.resource.slug, ...segments) + (search ? `?${search}` : '')
  }

  flavor(choice: FlavorChoice): string {
    if (choice.source === 'hls') return this.url(['hls', 'master.m3u8'])
    if (choice.source === 'original') return this.url(['source'])
    const rendition = choice.rendition
    if (rendition.mimeType.startsWith('audio/')) {
      const extension = /\.[a-z0-9]+$/.exec(rendition.storageKey)?.[0] ?? ''
      return this.url(['flavor', 'audio', `${rendition.name}${extension}`])
    }
    return this.url(['flavor', 'video', `${rendition.name}.mp4`])
  }

  player(): string {
    const search = this.token ? `?${new URLSearchParams({ token: this.token }).toString()}` : ''
    return this.c.links.url('player', this.resource.slug) + search
  }
}

/** The longest duration of the renditions (the source's, as encoded), to two decimals. */
function durationOf(renditions: readonly RenditionView[]): number | null {
  const durations = renditions.map((r) => r.duration).filter((d): d is number => typeof d === 'number' && d > 0)
  return durations.length ? Math.round(Math.max(...durations) * 100) / 100 : null
}

/** Memoizes one async lookup per key (the platform's definitions, the media's channels). */
function perKey<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const cache = new Map<K, Promise<V>>()
  return (key) => {
    let value = cache.get(key)
    if (!value) cache.set(key, (value = load(key)))
    return value
  }
}

/** What describing resources uses, from the plugins the resources plugin depends on. */
export interface DescriberParts {
  files: FileViews
  offers: ChannelOffers
  definitions: MetadataDefinitions
  renditions: ShownRenditions
  subtitles: FileSubtitles
  emit: Emit
  tokens: Tokens
}

/** How a resource's details are made: with media tokens or not, and their lifetime. */
export interface DescribeOptions {
  withToken: boolean
  tokenTtl: number
}

/**
 * The details of resources for their answers (info and lists, the player, the portal, the
 * feeds), exposed as `RESOURCE_DETAILS` to the plugins that show resources.
 */
export class ResourceDescriber {
  constructor(private readonly parts: DescriberParts) {}

  /** See `describeResources`. */
  describe(
    c: HttpContext,
    resources: readonly ResourceView[],
    options: DescribeOptions,
  ): Promise<Map<number, ResourceDetails>> {
    return describeResources(this.parts, c, resources, options)
  }
}

/** The resources plugin's details of resources, for the plugins that depend on it. */
export const RESOURCE_DETAILS = serviceKey<ResourceDescriber>('resources.details')

/**
 * The details of resources for their answers (info and lists), each kind of data read for the
 * whole list at once through the plugin that owns it: files, renditions, subtitles,
 * definitions, channels, widgets. Each keeps what it read per process (on PostgreSQL), so a
 * first answer reads again only what changed.
 */
async function describeResources(
  {
    files: fileViews,
    offers,
    definitions: definitionsOfPlatform,
    renditions: shown,
    subtitles: subtitlesOfFiles,
    emit,
    tokens,
  }: DescriberParts,
  c: HttpContext,
  resources: readonly ResourceView[],
  options: DescribeOptions,
): Promise<Map<number, ResourceDetails>> {
  const reader = c.reader
  const fileIds = [...new Set(resources.map((r) => r.fileId))]
  const [files, renditions, subtitles] = await Promise.all([
    fileViews.byIds(fileIds),
    shown.ofFiles(fileIds),
    subtitlesOfFiles.ofFiles(fileIds),
  ])
  const definitionsOf = perKey((platformId: number) => definitionsOfPlatform.ofPlatform(platformId))
  const offerOf = perKey((mediaId: number): Promise<ChannelOffer> => offers.of(reader, mediaId))
  const extras = new Map<number, ResourceExtras>(resources.map((r) => [r.id, { widgets: [] }]))
  if (resources.length) await emit('resource.describe', { resources, extras })

  const details = new Map<number, ResourceDetails>()
  for (const resource of resources) {
    const file = files.get(resource.fileId) as FileView
    const token = options.withToken ? resourceToken(tokens, resource, options.tokenTtl) : undefined
    const urls = new ResourceUrls(c, resource, token)
    const ofFile = renditions.get(resource.fileId) ?? []
    const offer = await offerOf(resource.mediaId)
    const definitions = await definitionsOf(resource.platformId)
    const thumbnail = thumbnailOf(ofFile)
    details.set(resource.id, {
      duration: durationOf(ofFile),
      thumbnail: thumbnail ? urls.url(['thumbnail', 'thumb.jpg'], { v: String(thumbnail.id) }) : '',
      flavors: offer.flavors(file, ofFile).map((choice) => ({ name: choice.name, url: urls.flavor(choice) })),
      players: offer.players ? [{ name: 'default', url: urls.player() }] : [],
      widgets: extras.get(resource.id)!.widgets,
      subtitles: (subtitles.get(resource.fileId) ?? []).map((s) => ({
        language: s.language,
        href: urls.url(['subtitles', s.publicId]),
      })),
      metadata: effectiveMetadata(file.metadata, resource.metadata, definitions),
      definitions,
    })
  }
  return details
}

/** File values, overridden by the resource's own unless the definition is protected. */
export function effectiveMetadata(
  fileValues: Readonly<Record<string, MetadataValue>>,
  resourceValues: Readonly<Record<string, MetadataValue>>,
  definitions: readonly MetadataDefinitionView[],
): Record<string, MetadataValue> {
  const shown: Record<string, MetadataValue> = { ...fileValues }
  const protectedIds = new Set(definitions.filter((d) => d.isProtected).map((d) => String(d.id)))
  for (const [id, value] of Object.entries(resourceValues)) if (!protectedIds.has(id)) shown[id] = value
  return shown
}
