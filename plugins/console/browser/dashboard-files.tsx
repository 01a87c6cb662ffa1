import { useSignal } from '@preact/signals'
import { type Session, childText, getPage, getXml, postXml, reasonOf } from './api.js'
import { fileHref } from './file-data.js'
import { encodingLabel } from './format.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { libraryHref } from './library-query.js'
import { type Language, type MessageKey, message } from './messages/index.js'

interface Upload {
  slug: string
  name: string
  status: string
  progress: number
}

interface Failure extends Upload {
  reason: string
}

interface RecentFiles {
  uploads: Upload[]
  failures: Failure[]
  /** Every failed encoding of the user, beyond the few shown. */
  failed: number
}

/** How many of each the dashboard shows; the library has the rest. */
const SHOWN = 5

const uploadsOf = (doc: Document): Upload[] =>
  Array.from(doc.getElementsByTagName('file')).map((element) => ({
    slug: childText(element, 'slug'),
    name: childText(element, 'name'),
    status: childText(element, 'encoding_status'),
    progress: Number(childText(element, 'encoding_progress')),
  }))

async function loadRecent(session: Session): Promise<RecentFiles> {
  const [recent, failed] = await Promise.all([
    getPage(session, '/search/files?sort=-created', 0, SHOWN),
    getPage(session, '/search/files?status=failed&sort=-created', 0, SHOWN),
  ])
  // Each failure's reason is in its info (a listing does not carry it): a request for each of the few shown.
  const failures = await Promise.all(
    uploadsOf(failed.doc).map(async (file) => ({
      ...file,
      reason: childText(await getXml(session, `/file/${encodeURIComponent(file.slug)}`), 'encoding_error'),
    })),
  )
  return { uploads: uploadsOf(recent.doc), failures, failed: failed.total }
}

/** The user's latest uploads with their encoding, and the encodings that failed, each with its reason and a retry. */
export function RecentFilesCards(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadRecent(session))
  const retried = useSignal<{ name: string; problem?: string } | null>(null)

  async function encodeAgain(file: Failure) {
    try {
      await postXml(session, `/file/${encodeURIComponent(file.slug)}/encoding`)
      retried.value = { name: file.name }
    } catch (error) {
      retried.value = { name: file.name, problem: reasonOf(error) }
    }
    reload()
  }

  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const { uploads, failures, failed } = current.value
  return (
    <>
      <section class="card" aria-labelledby="recent-heading">
        <h2 id="recent-heading">{t('dashboard.recent')}</h2>
        {uploads.length ? (
          <ul>
            {uploads.map((file) => (
              <li key={file.slug}>
                <a href={fileHref(session.base, file.slug)}>{file.name}</a>:{' '}
                {encodingLabel(language, file.status, file.progress)}
              </li>
            ))}
          </ul>
        ) : (
          <p>{t('dashboard.recent.empty')}</p>
        )}
        <p>
          <a href={libraryHref(session.base, {})}>{t('dashboard.recent.library')}</a>
        </p>
      </section>
      <section class="card" aria-labelledby="failures-heading">
        <h2 id="failures-heading">{t('dashboard.failures')}</h2>
        {retried.value ? (
          <p role="status" class={retried.value.problem ? 'problem' : 'notice'}>
            {retried.value.problem
              ? t('dashboard.failures.refused', { name: retried.value.name, reason: retried.value.problem })
              : t('dashboard.failures.again', { name: retried.value.name })}
          </p>
        ) : null}
        {failures.length ? (
          <ul>
            {failures.map((file) => (
              <li key={file.slug}>
                <p>
                  <strong>{file.name}</strong>: {file.reason}
                </p>
                {session.flags.has('file.edit') ? (
                  <button type="button" onClick={() => encodeAgain(file)}>
                    {t('dashboard.failures.retry', { name: file.name })}
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p>{t('dashboard.failures.none')}</p>
        )}
        {failed > failures.length ? (
          <p>
            <a href={libraryHref(session.base, { status: 'failed', scope: 'all' })}>
              {t('dashboard.failures.all', { count: failed })}
            </a>
          </p>
        ) : null}
      </section>
    </>
  )
}
