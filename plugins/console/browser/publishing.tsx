import type { Session } from './api.js'
import { type Language, message } from './messages/index.js'
import { readPlace } from './publishing-data.js'
import { ResourcePage } from './publishing-resource.js'
import { SitePage } from './publishing-site.js'
import { SitesPage } from './publishing-sites.js'
import { StreamPage } from './publishing-stream.js'

/**
 * Publishing: the media sites, their nested streams and channels, the resources of a stream (with their views),
 * and a resource's widgets, embed codes and share link. Each page is an address (`?media=`, `?stream=`,
 * `?resource=`): a link, a reload and the back button show the same page.
 */
export function Publishing(props: { session: Session; language: Language }) {
  const { session, language } = props
  const place = readPlace(location.search)
  return (
    <div class="publishing">
      <nav aria-label={message(language, 'publishing.breadcrumb')}>
        <ul class="plain">
          <li>
            <a href={`${session.base}/console/publishing`} aria-current={place.page === 'sites' ? 'page' : undefined}>
              {message(language, 'publishing.sites')}
            </a>
          </li>
          <li>
            <a href={`${session.base}/console/library`}>{message(language, 'nav.library')}</a>
          </li>
        </ul>
      </nav>
      {place.page === 'sites' ? <SitesPage session={session} language={language} /> : null}
      {place.page === 'site' ? <SitePage session={session} language={language} slug={place.slug} /> : null}
      {place.page === 'stream' ? <StreamPage session={session} language={language} slug={place.slug} /> : null}
      {place.page === 'resource' ? <ResourcePage session={session} language={language} slug={place.slug} /> : null}
    </div>
  )
}
