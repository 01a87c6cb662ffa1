import { useSignal } from '@preact/signals'
import { type Session, deleteAt, putXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { Editable } from './publishing-editable.js'
import { type Resource, changedFields, loadResource, mayPublish, placeHref } from './publishing-data.js'
import { ShareCard } from './publishing-share.js'
import { VisibilityField, visibilityLabel } from './publishing-streams.js'
import { WidgetsCard } from './publishing-widgets.js'

/** A resource's title, description and visibility (`PUT /resource/<slug>`, only what changed). */
function ResourceForm(props: {
  session: Session
  language: Language
  resource: Resource
  onSaved: () => void
  onCancel: () => void
}) {
  const { session, language, resource, onSaved, onCancel } = props
  const t = (key: MessageKey) => message(language, key)
  const fields = useSignal({
    title: resource.title,
    description: resource.description,
    visibility: resource.visibility,
  })
  const action = useAction()
  async function save(event: Event) {
    event.preventDefault()
    const before = { title: resource.title, description: resource.description, visibility: resource.visibility }
    const changed = changedFields(before, fields.value)
    const path = `/resource/${encodeURIComponent(resource.slug)}`
    if (await action.run(() => putXml(session, path, changed))) onSaved()
  }
  const set = (name: keyof typeof fields.value, value: string) => (fields.value = { ...fields.value, [name]: value })
  return (
    <form onSubmit={save} aria-label={t('publishing.resource.edit')}>
      <label for="resource-title">{t('publishing.resource.title')}</label>
      <input
        type="text"
        id="resource-title"
        required
        value={fields.value.title}
        onInput={(event) => set('title', (event.target as HTMLInputElement).value)}
      />
      <label for="resource-description">{t('publishing.resource.description')}</label>
      <textarea
        id="resource-description"
        value={fields.value.description}
        onInput={(event) => set('description', (event.target as HTMLTextAreaElement).value)}
      />
      <VisibilityField
        language={language}
        id="resource-visibility"
        value={fields.value.visibility}
        onChange={(value) => set('visibility', value)}
      />
      <FormActions language={language} action={action} submit={t('publishing.save')} onCancel={onCancel} />
    </form>
  )
}

/** One published resource: its facts and views, a change, unpublishing (confirmed), its share link and widgets. */
export function ResourcePage(props: { session: Session; language: Language; slug: string }) {
  const { session, language, slug } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadResource(session, slug))
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const resource = current.value
  const manage = mayPublish(session)
  return (
    <div>
      <section class="card" aria-labelledby="resource-heading">
        <h2 id="resource-heading">{t('publishing.resource', { title: resource.title })}</h2>
        <p>
          <a href={placeHref(session, { page: 'stream', slug: resource.stream })}>{t('publishing.resource.stream')}</a>
        </p>
        <Editable
          language={language}
          edit={manage ? t('publishing.resource.edit_named', { title: resource.title }) : null}
          form={(close) => <ResourceForm session={session} language={language} resource={resource} {...close} />}
          onSaved={reload}
          remove={{
            label: t('publishing.resource.unpublish', { title: resource.title }),
            question: t('publishing.resource.unpublish.question', { title: resource.title }),
            onConfirm: () => deleteAt(session, `/resource/${encodeURIComponent(resource.slug)}`),
            onDone: () => location.assign(placeHref(session, { page: 'stream', slug: resource.stream })),
          }}
        >
          <dl class="facts">
            <dt>{t('publishing.visibility')}</dt>
            <dd>{visibilityLabel(language, resource.visibility)}</dd>
            <dt>{t('publishing.resource.views')}</dt>
            <dd>{resource.views.toLocaleString(language)}</dd>
            <dt>{t('publishing.resource.description')}</dt>
            <dd>{resource.description || t('publishing.none')}</dd>
          </dl>
        </Editable>
      </section>
      <ShareCard language={language} resource={resource} />
      <WidgetsCard session={session} language={language} resource={resource} />
    </div>
  )
}
