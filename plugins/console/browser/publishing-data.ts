/**
 * What the publishing section reads from the API (media sites, streams, channels, resources, widgets, player themes
 * and behaviors), as plain objects, and where each of its pages is (`?media=`, `?stream=`, `?resource=`).
 */
import { type Session, childText, getPage, getXml, linkedSlug } from './api.js'

/** Enough entries for one list page of the section: the API pages lists, a site rarely holds more. */
const LIST_SIZE = 500

export interface Site {
  slug: string
  name: string
  domain: string
  description: string
  contactEmail: string
}

export interface Stream {
  slug: string
  title: string
  visibility: string
  /** The parent stream's slug, '' at the top of the site. */
  parent: string
  /** The site's slug. */
  media: string
}

export interface Channel {
  slug: string
  name: string
  type: string
  online: boolean
  /** The RSS feed of an online syndication channel, else ''. */
  feed: string
}

export interface Resource {
  slug: string
  title: string
  description: string
  visibility: string
  views: number
  /** The stream's slug. */
  stream: string
  /** The player page: what a share link points at ('' when no online channel offers players). */
  player: string
}

export interface Widget {
  slug: string
  name: string
  size: string
  theme: string
  behavior: string
  iframe: string
  script: string
}

export interface Choice {
  slug: string
  name: string
}

/** The section's pages, by their address: the sites, one site, one stream, one resource. */
export type Place =
  | { page: 'sites' }
  | { page: 'site'; slug: string }
  | { page: 'stream'; slug: string }
  | { page: 'resource'; slug: string }

export function readPlace(search: string): Place {
  const query = new URLSearchParams(search)
  for (const page of ['resource', 'stream', 'media'] as const) {
    const slug = query.get(page)
    if (slug) return page === 'media' ? { page: 'site', slug } : { page, slug }
  }
  return { page: 'sites' }
}

/** The address of a page of the section. */
export function placeHref(session: Session, place: Place): string {
  const base = `${session.base}/console/publishing`
  if (place.page === 'sites') return base
  const name = place.page === 'site' ? 'media' : place.page
  return `${base}?${name}=${encodeURIComponent(place.slug)}`
}

const at = (slug: string) => encodeURIComponent(slug)
const entries = (doc: Document, name: string) => Array.from(doc.documentElement.getElementsByTagName(name))

function siteOf(element: Element): Site {
  return {
    slug: childText(element, 'slug'),
    name: childText(element, 'name'),
    domain: childText(element, 'domain_name'),
    description: childText(element, 'description'),
    contactEmail: childText(element, 'contact_email'),
  }
}

export async function loadSites(session: Session, platform: string): Promise<Site[]> {
  const { doc } = await getPage(session, `/platform/${at(platform)}/medias`, 0, LIST_SIZE)
  return entries(doc, 'media').map(siteOf)
}

export async function loadSite(session: Session, slug: string): Promise<Site> {
  return siteOf((await getXml(session, `/media/${at(slug)}`)).documentElement)
}

function streamOf(session: Session, element: Element): Stream {
  return {
    slug: childText(element, 'slug'),
    title: childText(element, 'title'),
    visibility: childText(element, 'visibility'),
    parent: childText(element, 'parent_stream'),
    media: linkedSlug(session, element, 'media'),
  }
}

export async function loadStreams(session: Session, media: string): Promise<Stream[]> {
  const { doc } = await getPage(session, `/media/${at(media)}/streams`, 0, LIST_SIZE)
  return entries(doc, 'stream').map((element) => streamOf(session, element))
}

export async function loadStream(session: Session, slug: string): Promise<Stream> {
  return streamOf(session, (await getXml(session, `/stream/${at(slug)}`)).documentElement)
}

export async function loadChannels(session: Session, media: string): Promise<Channel[]> {
  const { doc } = await getPage(session, `/media/${at(media)}/channels`, 0, LIST_SIZE)
  return entries(doc, 'channel').map((element) => {
    const type = childText(element, 'type')
    const online = childText(element, 'is_online') === 'true'
    const href = element.getAttribute('href') || ''
    return {
      slug: childText(element, 'slug'),
      name: childText(element, 'name'),
      type,
      online,
      feed: online && type === 'syndication' && href ? `${href}/feed.rss` : '',
    }
  })
}

function resourceOf(session: Session, element: Element): Resource {
  const player = Array.from(element.getElementsByTagName('player')).find((p) => p.getAttribute('name') === 'default')
  return {
    slug: childText(element, 'slug'),
    title: childText(element, 'title'),
    description: childText(element, 'description'),
    visibility: childText(element, 'visibility'),
    views: Number(childText(element, 'views') || 0),
    stream: linkedSlug(session, element, 'stream'),
    player: player ? player.textContent || '' : '',
  }
}

export async function loadResources(session: Session, stream: string): Promise<Resource[]> {
  const { doc } = await getPage(session, `/stream/${at(stream)}/resources`, 0, LIST_SIZE)
  return entries(doc, 'resource').map((element) => resourceOf(session, element))
}

export async function loadResource(session: Session, slug: string): Promise<Resource> {
  return resourceOf(session, (await getXml(session, `/resource/${at(slug)}`)).documentElement)
}

/** A widget's info: the list lacks its embed codes, theme and behavior. */
export async function loadWidget(session: Session, resource: string, slug: string): Promise<Widget> {
  const doc = await getXml(session, `/resource/${at(resource)}/widgets/${at(slug)}`)
  const root = doc.documentElement
  return {
    slug: childText(root, 'slug'),
    name: childText(root, 'name'),
    size: childText(root, 'size'),
    theme: linkedSlug(session, root, 'player_theme'),
    behavior: linkedSlug(session, root, 'player_behavior'),
    iframe: childText(root, 'iframe'),
    script: childText(root, 'javascript'),
  }
}

export async function loadWidgets(session: Session, resource: string): Promise<Widget[]> {
  const { doc } = await getPage(session, `/resource/${at(resource)}/widgets`, 0, LIST_SIZE)
  return Promise.all(entries(doc, 'widget').map((element) => loadWidget(session, resource, childText(element, 'slug'))))
}

/** The player themes or behaviors of a platform, for a widget to name one. */
export async function loadChoices(
  session: Session,
  platform: string,
  kind: 'player_theme' | 'player_behavior',
): Promise<Choice[]> {
  const { doc } = await getPage(session, `/platform/${at(platform)}/${kind}`, 0, LIST_SIZE)
  return entries(doc, kind).map((element) => ({ slug: childText(element, 'slug'), name: childText(element, 'name') }))
}

/** The share link of a player page starting at `seconds` (`?t=`, which the player honours); as is at 0. */
export function shareLink(player: string, seconds: number): string {
  if (!player || !(seconds > 0)) return player
  const url = new URL(player)
  url.searchParams.set('t', String(Math.floor(seconds)))
  return url.href
}

/**
 * Whether the profile may obviously make and change what is published: administrators (of the platform or the
 * installation) and publishers (a `file.publish_<type>` flag). Per-object rights are the API's: it refuses the rest.
 */
export function mayPublish(session: Session): boolean {
  return mayCreateSites(session) || Array.from(session.flags).some((flag) => flag.startsWith('file.publish_'))
}

/** Making a site needs `media.create` on the platform: in practice a platform or installation administrator. */
export function mayCreateSites(session: Session): boolean {
  return session.flags.has('platform.edit') || session.flags.has('instance.view')
}

/** The fields of `after` whose value differs from `before`: what a partial update (`PUT`) sends. */
export function changedFields(before: Record<string, string>, after: Record<string, string>): Record<string, string> {
  const changed: Record<string, string> = {}
  for (const name of Object.keys(after)) if (before[name] !== after[name]) changed[name] = after[name]!
  return changed
}
