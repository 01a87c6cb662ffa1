import type { Session } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { type Stream, loadResources, placeHref } from './publishing-data.js'
import { visibilityLabel } from './publishing-streams.js'

/**
 * The resources of a stream (`GET /stream/<slug>/resources`) with their visibility and views (playback sessions the
 * player counted). Publishing stays the library's (**Publish…**): one way of doing it.
 */
export function ResourcesCard(props: { session: Session; language: Language; stream: Stream }) {
  const { session, language, stream } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadResources(session, stream.slug))
  return (
    <section class="card" aria-labelledby="resources-heading">
      <h2 id="resources-heading">{t('publishing.resources')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {current.state === 'ready' && current.value.length ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('publishing.resource.title')}</th>
                <th scope="col">{t('publishing.visibility')}</th>
                <th scope="col">{t('publishing.resource.views')}</th>
              </tr>
            </thead>
            <tbody>
              {current.value.map((resource) => (
                <tr key={resource.slug}>
                  <th scope="row">
                    <a href={placeHref(session, { page: 'resource', slug: resource.slug })}>{resource.title}</a>
                  </th>
                  <td>{visibilityLabel(language, resource.visibility)}</td>
                  <td>{resource.views.toLocaleString(language)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {current.state === 'ready' && !current.value.length ? <p>{t('publishing.resources.none')}</p> : null}
      <p class="hint">
        {t('publishing.resources.publish')} <a href={`${session.base}/console/library`}>{t('nav.library')}</a>
      </p>
    </section>
  )
}
