/**
 * One file's page (`/console/file?slug=<slug>`): its facts and encoding, the player or picture, its metadata,
 * thumbnail, subtitles, logo insertion, download, encode again and delete. Each control is offered only to profiles
 * whose flags allow it (the API decides anyway); another user's file, or none, is "not found", as the API says.
 */
import { ApiError, type Session } from './api.js'
import type { T } from './file-action.js'
import { FileActions } from './file-actions.js'
import { type FileDetails, loadFile } from './file-data.js'
import { useEncodingWatch } from './file-encoding.js'
import { FileFacts } from './file-facts.js'
import { FileLogo } from './file-logo.js'
import { FileMetadata } from './file-metadata.js'
import { FilePreview } from './file-preview.js'
import { FileSubtitles } from './file-subtitles.js'
import { FileThumbnail } from './file-thumbnail.js'
import { libraryHref } from './library-query.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, message } from './messages/index.js'

/** The file, or null when the API answers 404 (none of that slug, or somebody else's: the API does not say which). */
async function findFile(session: Session, slug: string): Promise<FileDetails | null> {
  if (!slug) return null
  try {
    return await loadFile(session, slug)
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null
    throw error
  }
}

export function FilePage(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t: T = (key, values) => message(language, key, values)
  const slug = new URLSearchParams(location.search).get('slug') || ''
  const { current, reload } = useLoad(() => findFile(session, slug))
  const file = current.state === 'ready' ? current.value : null
  const encoding = useEncodingWatch(session, slug, file && { status: file.status, progress: file.progress }, reload)

  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  if (!file || !encoding) {
    return (
      <div role="alert" class="card">
        <p>{t('file.not_found')}</p>
        <p>
          <a href={libraryHref(session.base, {})}>{t('file.back_to_library')}</a>
        </p>
      </div>
    )
  }
  const canLogo = session.flags.has('file.create') && file.type === 'video' && encoding.status === 'finished'
  return (
    <div>
      <p>
        <a href={libraryHref(session.base, { folder: file.folder })}>{t('file.back_to_folder')}</a>
      </p>
      <div class="grid">
        <FileFacts session={session} language={language} t={t} file={file} encoding={encoding} onChanged={reload} />
        <FilePreview t={t} pageLanguage={language} file={file} />
      </div>
      <FileActions session={session} t={t} file={file} status={encoding.status} onChanged={reload} />
      <FileMetadata session={session} t={t} file={file} onChanged={reload} />
      <FileThumbnail session={session} t={t} file={file} onChanged={reload} />
      <FileSubtitles session={session} t={t} pageLanguage={language} file={file} onChanged={reload} />
      {canLogo ? <FileLogo session={session} language={language} t={t} file={file} /> : null}
    </div>
  )
}
