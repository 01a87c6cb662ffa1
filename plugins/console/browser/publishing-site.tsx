import { type Session, deleteAt, ownPlatformSlug } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { ChannelsCard } from './publishing-channels.js'
import { Editable } from './publishing-editable.js'
import { loadSite, mayPublish, placeHref } from './publishing-data.js'
import { SiteForm } from './publishing-site-form.js'
import { StreamsCard } from './publishing-streams.js'

/** One media site: its facts, a change or a deletion (confirmed), its streams as a tree, and its channels. */
export function SitePage(props: { session: Session; language: Language; slug: string }) {
  const { session, language, slug } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(async () => ({
    site: await loadSite(session, slug),
    platform: await ownPlatformSlug(session),
  }))
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const { site, platform } = current.value
  const manage = mayPublish(session)
  return (
    <div>
      <section class="card" aria-labelledby="site-heading">
        <h2 id="site-heading">{t('publishing.site', { name: site.name })}</h2>
        <Editable
          language={language}
          edit={manage ? t('publishing.site.edit_named', { name: site.name }) : null}
          form={(close) => (
            <SiteForm session={session} language={language} site={site} platform={platform} {...close} />
          )}
          onSaved={reload}
          remove={{
            label: t('publishing.site.delete', { name: site.name }),
            question: t('publishing.site.delete.question', { name: site.name }),
            onConfirm: () => deleteAt(session, `/media/${encodeURIComponent(site.slug)}`),
            onDone: () => location.assign(placeHref(session, { page: 'sites' })),
          }}
        >
          <dl class="facts">
            <dt>{t('publishing.site.domain')}</dt>
            <dd>{site.domain}</dd>
            <dt>{t('publishing.site.contact')}</dt>
            <dd>{site.contactEmail}</dd>
            <dt>{t('publishing.site.description')}</dt>
            <dd>{site.description || t('publishing.none')}</dd>
          </dl>
        </Editable>
      </section>
      <StreamsCard session={session} language={language} site={site} />
      <ChannelsCard session={session} language={language} site={site} />
    </div>
  )
}
