import { useSignal } from '@preact/signals'
import { type Session, postXml, putXml } from './api.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { useAction } from './load.js'
import { type Site, changedFields } from './publishing-data.js'

/**
 * A media site's fields: a new site of the platform (`POST /platform/<p>/medias`) or a change to one (`PUT
 * /media/<slug>`, only the fields that changed). The API checks them (a host name, an address, a free domain).
 */
export function SiteForm(props: {
  session: Session
  language: Language
  /** The site changed; none for a new one. */
  site?: Site
  platform: string
  onSaved: (slug: string) => void
  onCancel?: () => void
}) {
  const { session, language, site, platform, onSaved, onCancel } = props
  const t = (key: MessageKey) => message(language, key)
  const fields = useSignal({
    name: site?.name ?? '',
    domain_name: site?.domain ?? '',
    contact_email: site?.contactEmail ?? '',
    description: site?.description ?? '',
  })
  const action = useAction()
  const id = site ? `site-${site.slug}` : 'site-new'

  async function save(event: Event) {
    event.preventDefault()
    let slug = site?.slug ?? ''
    const ok = await action.run(async () => {
      if (site) {
        const before: Record<string, string> = {
          name: site.name,
          domain_name: site.domain,
          contact_email: site.contactEmail,
          description: site.description,
        }
        const changed = changedFields(before, fields.value)
        if (Object.keys(changed).length) await putXml(session, `/media/${encodeURIComponent(site.slug)}`, changed)
      } else {
        const doc = await postXml(session, `/platform/${encodeURIComponent(platform)}/medias`, fields.value)
        slug = doc.getElementsByTagName('slug')[0]?.textContent || ''
      }
    })
    if (ok) onSaved(slug)
  }

  const field = (
    name: keyof typeof fields.value,
    label: MessageKey,
    type: 'text' | 'email' | 'textarea',
    hint?: MessageKey,
  ) => (
    <>
      <label for={`${id}-${name}`}>{t(label)}</label>
      {type === 'textarea' ? (
        <textarea
          id={`${id}-${name}`}
          value={fields.value[name]}
          onInput={(event) => (fields.value = { ...fields.value, [name]: (event.target as HTMLTextAreaElement).value })}
        />
      ) : (
        <input
          // Preact's types take one input type at a time, not a union of them.
          type={type as 'text'}
          id={`${id}-${name}`}
          required
          value={fields.value[name]}
          aria-describedby={hint ? `${id}-${name}-hint` : undefined}
          onInput={(event) => (fields.value = { ...fields.value, [name]: (event.target as HTMLInputElement).value })}
        />
      )}
      {hint ? (
        <p class="hint" id={`${id}-${name}-hint`}>
          {t(hint)}
        </p>
      ) : null}
    </>
  )

  return (
    <form onSubmit={save} aria-label={site ? t('publishing.site.edit') : t('publishing.site.new')}>
      {field('name', 'publishing.site.name', 'text')}
      {field('domain_name', 'publishing.site.domain', 'text', 'publishing.site.domain.hint')}
      {field('contact_email', 'publishing.site.contact', 'email')}
      {field('description', 'publishing.site.description', 'textarea')}
      <FormActions
        language={language}
        action={action}
        submit={site ? t('publishing.save') : t('publishing.site.create')}
        onCancel={onCancel}
      />
    </form>
  )
}
