/**
 * What the library shows, kept in the address (`/console/library?folder=lectures&q=intro&page=2`): a link, the back
 * button and a reload show the same list. The search form is a plain GET form of these names.
 */

export const FILE_TYPES = ['video', 'audio', 'image', 'document', 'other'] as const
export const ENCODING_STATES = ['pending', 'waiting', 'running', 'success', 'failed', 'finished'] as const
export const SORTS = ['-created', 'created', 'name', '-name', '-size', 'size'] as const
export type Sort = (typeof SORTS)[number]

/** Files per page: a screenful that renders at once, whatever the size of the store. */
export const PAGE_SIZE = 50

export interface LibraryQuery {
  /** A directory slug; null for the root. */
  folder: string | null
  /** Part of a name. */
  q: string
  type: string
  status: string
  sort: Sort
  /** `all`: every folder, not only this one. */
  scope: '' | 'all'
  /** From 1. */
  page: number
}

/** `value` when it is one of `values`, else ''. */
const pick = (values: readonly string[], value: string | null): string => (value && values.includes(value) ? value : '')

/** The query of an address's search part; anything unknown falls back to the default. */
export function readQuery(search: string): LibraryQuery {
  const params = new URLSearchParams(search)
  const page = Number(params.get('page'))
  return {
    folder: params.get('folder') || null,
    q: (params.get('q') || '').trim(),
    type: pick(FILE_TYPES, params.get('type')),
    status: pick(ENCODING_STATES, params.get('status')),
    sort: (pick(SORTS, params.get('sort')) || '-created') as Sort,
    scope: params.get('scope') === 'all' ? 'all' : '',
    page: Number.isSafeInteger(page) && page > 1 ? page : 1,
  }
}

/** The address of the library for `query` (defaults left out). */
export function libraryHref(base: string, query: Partial<LibraryQuery>): string {
  const params = new URLSearchParams()
  if (query.folder) params.set('folder', query.folder)
  if (query.q) params.set('q', query.q)
  if (query.type) params.set('type', query.type)
  if (query.status) params.set('status', query.status)
  if (query.sort && query.sort !== '-created') params.set('sort', query.sort)
  if (query.scope) params.set('scope', query.scope)
  if (query.page && query.page > 1) params.set('page', String(query.page))
  const text = params.toString()
  return `${base}/console/library${text ? `?${text}` : ''}`
}

/** Whether the query narrows the list (a search, a filter): its empty state says "nothing matches", not "empty". */
export const isFiltered = (query: LibraryQuery): boolean => Boolean(query.q || query.type || query.status)

/** The API path of the files `query` shows (`GET /search/files`, an extension of the contract). */
export function searchPath(query: LibraryQuery): string {
  const params = new URLSearchParams()
  if (query.q) params.set('name', query.q)
  if (query.type) params.set('type', query.type)
  if (query.status) params.set('status', query.status)
  if (query.scope !== 'all') params.set('folder', query.folder ?? '/')
  params.set('sort', query.sort)
  return `/search/files?${params}`
}
