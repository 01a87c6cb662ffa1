/** The file page's reads: one file's info, what it has to play, its snapshots and its platform's metadata definitions. */
import { type Session, childText, findOwnPlatformPath, getPage, getXml, unlessRefused } from './api.js'

export interface Flavor {
  name: string
  src: string
  type: string
  width: number
  height: number
  /** Seconds; 0 when unknown. */
  duration: number
}

export interface Snapshot {
  id: string
  src: string
  selected: boolean
}

export interface Subtitle {
  id: string
  language: string
  /** The API URL (it removes the track); with the media token, the WebVTT players read. */
  href: string
}

export interface MetadataField {
  name: string
  type: string
  /** The types of file it applies to. */
  fileTypes: string[]
  /** For a `choice`, its options. */
  options: string[]
}

export interface FileDetails {
  slug: string
  name: string
  size: number
  type: string
  mimeType: string
  status: string
  progress: number
  error: string
  /** The containing folder's slug, null for the root. */
  folder: string | null
  thumbnail: string
  /** Values by definition name, as the API answers them. */
  values: Record<string, string>
  subtitles: Subtitle[]
  source: string
  flavors: Flavor[]
  snapshots: Snapshot[]
  /** The media token the URLs carry (subtitle tracks need it too); '' before any. */
  token: string
  /** Null when the user may not read the platform's definitions (the API answers 403 or 404). */
  definitions: MetadataField[] | null
}

/** Where a file's page is: `/console/file?slug=<slug>`. */
export const fileHref = (base: string, slug: string): string => `${base}/console/file?slug=${encodeURIComponent(slug)}`

/** The API path of a file, or of something below it (`/file/<slug>/subtitles`). */
export const filePath = (slug: string, below = ''): string => `/file/${encodeURIComponent(slug)}${below}`

const number = (element: Element, name: string): number => Number(element.getAttribute(name) || 0)

/** The last segment of an API link (`.../files/lectures` → `lectures`; `.../files` → null). */
function lastSegment(href: string, after: string): string | null {
  const match = new RegExp(`/${after}/([^/?]+)$`).exec(new URL(href, location.href).pathname)
  return match ? decodeURIComponent(match[1]!) : null
}

async function definitionsOf(session: Session): Promise<MetadataField[] | null> {
  const platform = await findOwnPlatformPath(session)
  if (!platform) return null
  // Definitions are few (a form's worth): one page of 200 holds them. Without platform.view the API refuses (403),
  // or does not say the platform exists (404).
  const page = await unlessRefused(getPage(session, `${platform}/metadata`, 0, 200))
  if (!page) return null
  return Array.from(page.doc.documentElement.children).map((element) => ({
    name: childText(element, 'name'),
    type: childText(element, 'type'),
    fileTypes: childText(element, 'file_type').split(','),
    options: childText(element, 'type') === 'choice' ? childText(element, 'default_value').split(',') : [],
  }))
}

/**
 * Everything the page shows of a file, with media URLs carrying a media token (`with-token`): a `<video>` or `<img>`
 * cannot send the CSRF header a session needs (decision 0260). A 404 (another user's file, or none) is thrown as is.
 */
export async function loadFile(session: Session, slug: string): Promise<FileDetails> {
  const [info, renditions, snapshots, definitions] = await Promise.all([
    getXml(session, `${filePath(slug)}?with-token=1`),
    getXml(session, `${filePath(slug, '/renditions')}?with-token=1`),
    getXml(session, `${filePath(slug, '/snapshots')}?with-token=1`),
    definitionsOf(session),
  ])
  const file = info.documentElement
  const source = renditions.getElementsByTagName('source')[0]
  const sourceSrc = source?.getAttribute('src') || ''
  const token = new URL(sourceSrc || location.href, location.href).searchParams.get('token') || ''
  const values: Record<string, string> = {}
  for (const element of Array.from(file.getElementsByTagName('metadata')[0]?.children ?? [])) {
    values[element.getAttribute('name') || element.tagName] = element.textContent || ''
  }
  return {
    slug: childText(file, 'slug'),
    name: childText(file, 'name'),
    size: Number(childText(file, 'size')),
    type: childText(file, 'type'),
    mimeType: source?.getAttribute('type') || '',
    status: childText(file, 'encoding_status'),
    progress: Number(childText(file, 'encoding_progress')),
    error: childText(file, 'encoding_error'),
    folder: lastSegment(file.getElementsByTagName('directory')[0]?.getAttribute('href') || '', 'files'),
    thumbnail: childText(file, 'thumbnail'),
    values,
    subtitles: Array.from(file.getElementsByTagName('subtitle')).map((element) => {
      const href = element.getAttribute('href') || ''
      return { id: lastSegment(href, 'subtitles') || '', language: element.getAttribute('language') || '', href }
    }),
    source: sourceSrc,
    flavors: Array.from(renditions.getElementsByTagName('flavor')).map((element) => ({
      name: element.getAttribute('name') || '',
      src: element.getAttribute('src') || '',
      type: element.getAttribute('type') || '',
      width: number(element, 'width'),
      height: number(element, 'height'),
      duration: number(element, 'duration'),
    })),
    snapshots: Array.from(snapshots.getElementsByTagName('snapshot')).map((element) => ({
      id: element.getAttribute('id') || '',
      src: element.getAttribute('src') || '',
      selected: element.getAttribute('selected') === 'true',
    })),
    token,
    definitions,
  }
}

/** A URL of the file's media with its token: a subtitle's API URL becomes a track a `<track>` can load. */
export function withToken(href: string, token: string): string {
  if (!token) return href
  const url = new URL(href, location.href)
  url.searchParams.set('token', token)
  return url.toString()
}
