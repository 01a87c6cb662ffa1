import { type Session, ownPlatformSlug } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { loadSites, mayCreateSites, placeHref } from './publishing-data.js'
import { SiteForm } from './publishing-site-form.js'

/** The media sites of the platform the user sees (`GET /platform/<p>/medias`), and a new one for administrators. */
export function SitesPage(props: { session: Session; language: Language }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(async () => {
    const platform = await ownPlatformSlug(session)
    return { platform, sites: await loadSites(session, platform) }
  })
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const { platform, sites } = current.value
  return (
    <div>
      <section class="card" aria-labelledby="sites-heading">
        <h2 id="sites-heading">{t('publishing.sites')}</h2>
        {sites.length ? (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('publishing.site.name')}</th>
                  <th scope="col">{t('publishing.site.domain')}</th>
                </tr>
              </thead>
              <tbody>
                {sites.map((site) => (
                  <tr key={site.slug}>
                    <th scope="row">
                      <a href={placeHref(session, { page: 'site', slug: site.slug })}>{site.name}</a>
                    </th>
                    <td>{site.domain}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>{t('publishing.sites.none')}</p>
        )}
        <p class="hint">{t('publishing.sites.library')}</p>
      </section>
      {mayCreateSites(session) ? (
        <section class="card" aria-labelledby="site-new-heading">
          <h2 id="site-new-heading">{t('publishing.site.new')}</h2>
          <SiteForm
            session={session}
            language={language}
            platform={platform}
            onSaved={(slug) => location.assign(placeHref(session, { page: 'site', slug }))}
          />
        </section>
      ) : null}
    </div>
  )
}
