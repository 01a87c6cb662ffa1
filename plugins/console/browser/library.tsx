import { useSignal } from '@preact/signals'
import { type Session, postXml, reasonOf } from './api.js'
import { bytes, encodingLabel } from './format.js'
import { fileHref } from './file-data.js'
import { BulkActions } from './library-actions.js'
import { type FileRow, type LibraryPage, loadLibrary } from './library-data.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import {
  ENCODING_STATES,
  FILE_TYPES,
  type LibraryQuery,
  PAGE_SIZE,
  SORTS,
  isFiltered,
  libraryHref,
  readQuery,
} from './library-query.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { UploadPanel } from './upload.js'

type T = (key: MessageKey, values?: Record<string, string | number>) => string

/**
 * The library: one folder of the user's store (or every folder), searched, filtered, sorted and a page at a time
 * (`GET /search/files` with `Range`), its subfolders, and what to do with the selected files. What it shows is in the
 * address; the search form is a plain GET form.
 */
export function Library(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t: T = (key, values) => message(language, key, values)
  const query = readQuery(location.search)
  const { current, reload } = useLoad(() => loadLibrary(session, query))
  const selected = useSignal<ReadonlySet<string>>(new Set())
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') {
    return (
      <LoadProblem language={language} reason={current.reason} onRetry={reload}>
        <p>
          <a href={libraryHref(session.base, {})}>{t('library.back_to_root')}</a>
        </p>
      </LoadProblem>
    )
  }
  const { folder, files, total } = current.value
  const chosen = files.filter((file) => selected.value.has(file.slug))
  return (
    <div>
      <FolderHeading session={session} t={t} page={current.value} query={query} />
      {session.flags.has('file.create') && query.scope !== 'all' ? (
        <UploadPanel session={session} language={language} folder={folder.slug} onUploaded={reload} />
      ) : null}
      <SearchForm session={session} t={t} query={query} />
      {query.scope !== 'all' ? (
        <section class="card" aria-labelledby="folders-heading">
          <h2 id="folders-heading">{t('library.folders')}</h2>
          {folder.subfolders.length ? (
            <ul class="plain">
              {folder.subfolders.map((sub) => (
                <li key={sub.slug}>
                  <a href={libraryHref(session.base, { folder: sub.slug })}>{sub.name}</a>
                </li>
              ))}
            </ul>
          ) : (
            <p>{t('library.folders.empty')}</p>
          )}
          {session.flags.has('folder.create') ? (
            <NewFolder session={session} t={t} parent={folder.slug} onMade={reload} />
          ) : null}
        </section>
      ) : null}
      <section class="card" aria-labelledby="files-heading">
        <h2 id="files-heading">{t('library.files')}</h2>
        <BulkActions session={session} language={language} selected={chosen} onDone={reload} />
        {files.length ? (
          <FileTable base={session.base} t={t} language={language} files={files} selected={selected} />
        ) : (
          <p>{t(isFiltered(query) ? 'library.files.no_match' : 'library.files.empty')}</p>
        )}
        <Pager session={session} t={t} query={query} total={total} shown={files.length} />
      </section>
    </div>
  )
}

function FolderHeading(props: { session: Session; t: T; page: LibraryPage; query: LibraryQuery }) {
  const { session, t, page, query } = props
  const { folder } = page
  if (query.scope === 'all') return <p>{t('library.everywhere')}</p>
  return (
    <nav aria-label={t('library.path')}>
      <p>
        {folder.slug === null ? (
          <span aria-current="location">{t('library.root')}</span>
        ) : (
          <>
            <a href={libraryHref(session.base, { folder: folder.parent ?? null })}>{t('library.up')}</a>
            {' · '}
            <span aria-current="location">{t('library.in_folder', { name: folder.name })}</span>
          </>
        )}
      </p>
    </nav>
  )
}

function SearchForm(props: { session: Session; t: T; query: LibraryQuery }) {
  const { session, t, query } = props
  return (
    <form method="get" action={`${session.base}/console/library`} class="card filters" role="search">
      {query.folder ? <input type="hidden" name="folder" value={query.folder} /> : null}
      <div>
        <label for="library-q">{t('library.search')}</label>
        <input type="search" id="library-q" name="q" value={query.q} maxLength={255} />
      </div>
      <div>
        <label for="library-type">{t('library.type')}</label>
        <select id="library-type" name="type" value={query.type}>
          <option value="">{t('library.type.any')}</option>
          {FILE_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`type.${type}`)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="library-status">{t('library.status')}</label>
        <select id="library-status" name="status" value={query.status}>
          <option value="">{t('library.status.any')}</option>
          {ENCODING_STATES.map((status) => (
            <option key={status} value={status}>
              {t(`encoding.${status}`, { progress: '' })}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="library-sort">{t('library.sort')}</label>
        <select id="library-sort" name="sort" value={query.sort}>
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {t(`sort.${sort}`)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="library-scope">{t('library.scope')}</label>
        <select id="library-scope" name="scope" value={query.scope}>
          <option value="">{t('library.scope.here')}</option>
          <option value="all">{t('library.scope.all')}</option>
        </select>
      </div>
      <div class="actions">
        <button type="submit">{t('library.search.submit')}</button>
      </div>
    </form>
  )
}

function FileTable(props: {
  base: string
  t: T
  language: Language
  files: FileRow[]
  selected: { value: ReadonlySet<string> }
}) {
  const { base, t, language, files, selected } = props
  const all = files.every((file) => selected.value.has(file.slug))
  const toggle = (slug: string) => {
    const next = new Set(selected.value)
    if (!next.delete(slug)) next.add(slug)
    selected.value = next
  }
  return (
    <div class="scroll">
      <table>
        <caption class="hidden">{t('library.files')}</caption>
        <thead>
          <tr>
            <th scope="col">
              <input
                type="checkbox"
                aria-label={t('library.select_page')}
                checked={all}
                onChange={() => (selected.value = all ? new Set() : new Set(files.map((file) => file.slug)))}
              />
            </th>
            <th scope="col">{t('library.name')}</th>
            <th scope="col">{t('library.type')}</th>
            <th scope="col">{t('library.size')}</th>
            <th scope="col">{t('library.status')}</th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <tr key={file.slug}>
              <td>
                <input
                  type="checkbox"
                  aria-label={t('library.select', { name: file.name })}
                  checked={selected.value.has(file.slug)}
                  onChange={() => toggle(file.slug)}
                />
              </td>
              <th scope="row">
                <a href={fileHref(base, file.slug)}>{file.name}</a>
              </th>
              <td>{isType(file.type) ? t(`type.${file.type}`) : file.type}</td>
              <td>{bytes(file.size, language)}</td>
              <td>{encodingLabel(language, file.status, file.progress)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const isType = (value: string): value is (typeof FILE_TYPES)[number] =>
  (FILE_TYPES as readonly string[]).includes(value)

function Pager(props: { session: Session; t: T; query: LibraryQuery; total: number; shown: number }) {
  const { session, t, query, total, shown } = props
  if (!total) return null
  const first = (query.page - 1) * PAGE_SIZE + 1
  const pages = Math.ceil(total / PAGE_SIZE)
  return (
    <nav aria-label={t('library.pages')} class="actions">
      <p role="status">{t('library.showing', { first, last: first + shown - 1, total })}</p>
      {query.page > 1 ? (
        <a class="button" href={libraryHref(session.base, { ...query, page: query.page - 1 })}>
          {t('library.previous')}
        </a>
      ) : null}
      {query.page < pages ? (
        <a class="button" href={libraryHref(session.base, { ...query, page: query.page + 1 })}>
          {t('library.next')}
        </a>
      ) : null}
    </nav>
  )
}

function NewFolder(props: { session: Session; t: T; parent: string | null; onMade: () => void }) {
  const { session, t, parent, onMade } = props
  const name = useSignal('')
  const problem = useSignal('')
  async function submit(event: Event) {
    event.preventDefault()
    problem.value = ''
    try {
      await postXml(session, parent ? `/files/${encodeURIComponent(parent)}` : '/files', { name: name.value })
      name.value = ''
      onMade()
    } catch (error) {
      problem.value = reasonOf(error)
    }
  }
  return (
    <form onSubmit={submit}>
      <label for="new-folder">{t('library.new_folder')}</label>
      <input
        type="text"
        id="new-folder"
        required
        maxLength={255}
        value={name.value}
        onInput={(event) => (name.value = (event.target as HTMLInputElement).value)}
        aria-describedby={problem.value ? 'new-folder-problem' : undefined}
      />
      {problem.value ? (
        <p class="problem" role="alert" id="new-folder-problem">
          {t('state.error', { reason: problem.value })}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit">{t('library.new_folder.submit')}</button>
      </div>
    </form>
  )
}
