import { useSignal } from '@preact/signals'
import { type Session, postXml, putXml } from './api.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { useAction } from './load.js'
import type { Choice, Widget } from './publishing-data.js'

/** The platform's player themes and behaviors; null where the profile may not name one (no `.use` flag). */
export interface PlayerChoices {
  themes: Choice[] | null
  behaviors: Choice[] | null
}

/**
 * A widget's name, frame size, player theme and behavior: a new widget (`POST /resource/<r>/widgets`) or a change
 * (`PUT /resource/<r>/widgets/<w>`). A theme or behavior is offered only to profiles that may use one.
 */
export function WidgetForm(props: {
  session: Session
  language: Language
  resource: string
  widget?: Widget
  choices: PlayerChoices
  onSaved: () => void
  onCancel?: () => void
}) {
  const { session, language, resource, widget, choices, onSaved, onCancel } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const fields = useSignal({
    name: widget?.name ?? '',
    size: widget?.size ?? '640x360',
    player_theme: widget?.theme ?? '',
    player_behavior: widget?.behavior ?? '',
  })
  const action = useAction()
  const id = widget ? `widget-${widget.slug}` : 'widget-new'
  async function save(event: Event) {
    event.preventDefault()
    const form: Record<string, string> = { name: fields.value.name, size: fields.value.size }
    if (choices.themes) form.player_theme = fields.value.player_theme
    if (choices.behaviors) form.player_behavior = fields.value.player_behavior
    const base = `/resource/${encodeURIComponent(resource)}/widgets`
    const ok = await action.run(() =>
      widget ? putXml(session, `${base}/${encodeURIComponent(widget.slug)}`, form) : postXml(session, base, form),
    )
    if (ok) {
      if (!widget) fields.value = { ...fields.value, name: '' }
      onSaved()
    }
  }
  const set = (name: keyof typeof fields.value, value: string) => (fields.value = { ...fields.value, [name]: value })
  const select = (name: 'player_theme' | 'player_behavior', label: MessageKey, list: Choice[] | null) =>
    list ? (
      <>
        <label for={`${id}-${name}`}>{t(label)}</label>
        <select
          id={`${id}-${name}`}
          value={fields.value[name]}
          onChange={(event) => set(name, (event.target as HTMLSelectElement).value)}
        >
          <option value="">{t('publishing.widget.default')}</option>
          {list.map((choice) => (
            <option key={choice.slug} value={choice.slug}>
              {choice.name}
            </option>
          ))}
        </select>
      </>
    ) : null
  return (
    <form
      onSubmit={save}
      aria-label={widget ? t('publishing.widget.edit', { name: widget.name }) : t('publishing.widget.new')}
    >
      <label for={`${id}-name`}>{t('publishing.widget.name')}</label>
      <input
        type="text"
        id={`${id}-name`}
        required
        value={fields.value.name}
        onInput={(event) => set('name', (event.target as HTMLInputElement).value)}
      />
      <label for={`${id}-size`}>{t('publishing.widget.size')}</label>
      <input
        type="text"
        id={`${id}-size`}
        required
        value={fields.value.size}
        aria-describedby={`${id}-size-hint`}
        onInput={(event) => set('size', (event.target as HTMLInputElement).value)}
      />
      <p class="hint" id={`${id}-size-hint`}>
        {t('publishing.widget.size.hint')}
      </p>
      {select('player_theme', 'publishing.widget.theme', choices.themes)}
      {select('player_behavior', 'publishing.widget.behavior', choices.behaviors)}
      <FormActions
        language={language}
        action={action}
        submit={widget ? t('publishing.save') : t('publishing.widget.create')}
        onCancel={onCancel}
      />
    </form>
  )
}
