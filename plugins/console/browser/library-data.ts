/** The library's reads: one page of files and the folder shown, through the API's XML. */
import { type Session, childText, getPage, getXml } from './api.js'
import { type LibraryQuery, PAGE_SIZE, searchPath } from './library-query.js'

export interface FileRow {
  slug: string
  name: string
  size: number
  type: string
  status: string
  progress: number
  thumbnail: string
}

export interface FolderLink {
  slug: string
  name: string
}

export interface FolderView {
  /** Null for the root. */
  slug: string | null
  name: string
  /** The parent's slug, null for the root; undefined: this is the root. */
  parent?: string | null
  subfolders: FolderLink[]
}

export interface LibraryPage {
  folder: FolderView
  files: FileRow[]
  /** Files matching the query, all pages. */
  total: number
}

/** The last segment of an API link: a slug (`.../files/lectures` → `lectures`; `.../files` → null). */
function slugOf(href: string | null, collection: string): string | null {
  const path = new URL(href || '', location.href).pathname
  const match = new RegExp(`/${collection}/([^/]+)$`).exec(path)
  return match ? decodeURIComponent(match[1]!) : null
}

const directChildren = (parent: Element, name: string): Element[] =>
  Array.from(parent.children).filter((element) => element.tagName === name)

/** The subfolders of a folder (`/` the root): `GET /search/directories?parent=` (an extension of the contract). */
export async function subfoldersOf(session: Session, slug: string | null): Promise<FolderLink[]> {
  const doc = await getXml(session, `/search/directories?parent=${encodeURIComponent(slug ?? '/')}`)
  return Array.from(doc.getElementsByTagName('directory')).map((element) => ({
    slug: slugOf(element.getAttribute('href'), 'files') || '',
    name: childText(element, 'name'),
  }))
}

async function folderOf(session: Session, slug: string | null): Promise<FolderView> {
  if (slug === null) return { slug: null, name: '/', subfolders: await subfoldersOf(session, null) }
  // A directory's listing names it and its parent; its subfolders come from the same answer.
  const doc = await getXml(session, `/files/${encodeURIComponent(slug)}`)
  const root = doc.documentElement
  const parent = directChildren(root, 'directory').find((element) => element.getAttribute('rel') === 'parent')
  return {
    slug,
    name: childText(root, 'name'),
    parent: slugOf(parent?.getAttribute('href') ?? null, 'files'),
    subfolders: directChildren(root, 'directory')
      .filter((element) => element.getAttribute('rel') !== 'parent')
      .map((element) => ({ slug: childText(element, 'slug'), name: childText(element, 'name') })),
  }
}

export async function loadLibrary(session: Session, query: LibraryQuery): Promise<LibraryPage> {
  const [folder, page] = await Promise.all([
    folderOf(session, query.folder),
    getPage(session, searchPath(query), (query.page - 1) * PAGE_SIZE, PAGE_SIZE),
  ])
  const files = Array.from(page.doc.getElementsByTagName('file')).map((element) => ({
    slug: childText(element, 'slug'),
    name: childText(element, 'name'),
    size: Number(childText(element, 'size')),
    type: childText(element, 'type'),
    status: childText(element, 'encoding_status'),
    progress: Number(childText(element, 'encoding_progress')),
    thumbnail: childText(element, 'thumbnail'),
  }))
  return { folder, files, total: page.total }
}
