import { useSignal } from '@preact/signals'
import { type Session, childText, getXml, putXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { LOGO_POSITIONS, type PresetKind, type SettingName } from './settings-preset-kinds.js'

type Values = Record<'name' | SettingName, string>

/** A theme's or behavior's info answer as the form holds it (a language by its code, not its English name). */
function valuesOf(kind: PresetKind, doc: Document): Values {
  const values = { name: childText(doc, 'name') } as Values
  for (const { name, input } of kind.settings) {
    values[name] =
      input === 'language' ? doc.getElementsByTagName(name)[0]?.getAttribute('code') || '' : childText(doc, name)
  }
  return values
}

/**
 * One theme or behavior, read (`GET .../<slug>`) then changed (`PUT`, every field of the form): its name and each
 * setting with the input its type calls for. The API checks them (412 naming each wrong field, shown here).
 */
export function PresetForm(props: {
  session: Session
  language: Language
  kind: PresetKind
  path: string
  onSaved: (name: string) => void
  onCancel: () => void
}) {
  const { session, language, kind, path, onSaved, onCancel } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const values = useSignal<Values | null>(null)
  const action = useAction()
  const { current, reload } = useLoad(async () => {
    const loaded = valuesOf(kind, await getXml(session, path))
    values.value = loaded
    return loaded.name
  })
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const shown = values.value!
  const set = (name: keyof Values, value: string) => (values.value = { ...shown, [name]: value })

  async function submit(event: Event) {
    event.preventDefault()
    await action.run(async () => onSaved(childText(await putXml(session, path, { ...shown }), 'name')))
  }

  const prefix = `${kind.resource}-${path.split('/').pop()}`
  const headingId = `${prefix}-heading`
  return (
    <form class="card" aria-labelledby={headingId} onSubmit={submit} noValidate>
      <h3 id={headingId}>{t(`settings.${kind.kind}.editing`, { name: current.value })}</h3>
      <label for={`${prefix}-name`}>{t('settings.name')}</label>
      <input type="text" id={`${prefix}-name`} value={shown.name} onInput={(e) => set('name', e.currentTarget.value)} />
      {kind.settings.map(({ name, input }) => {
        const id = `${prefix}-${name}`
        const label = t(`settings.field.${name}`)
        if (input === 'flag') {
          return (
            <label key={name} class="settings-choice">
              <input
                type="checkbox"
                checked={shown[name] === '1'}
                onChange={(e) => set(name, e.currentTarget.checked ? '1' : '0')}
              />{' '}
              {label}
            </label>
          )
        }
        return (
          <div key={name}>
            <label for={id}>{label}</label>
            {input === 'position' ? (
              <select id={id} value={shown[name]} onChange={(e) => set(name, e.currentTarget.value)}>
                {LOGO_POSITIONS.map((position) => (
                  <option key={position} value={position}>
                    {t(`settings.position.${position}`)}
                  </option>
                ))}
              </select>
            ) : (
              <SettingField id={id} input={input} value={shown[name]} onChange={(value) => set(name, value)} />
            )}
          </div>
        )
      })}
      {action.problem ? (
        <p class="problem" role="alert">
          {t('settings.problem', { reason: action.problem })}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? t('settings.working') : t('settings.preset.save', { name: current.value })}
        </button>
        <button type="button" class="quiet" onClick={onCancel}>
          {t('settings.cancel')}
        </button>
      </div>
    </form>
  )
}

/** The input of a text-like setting: a color picker, an address, a number of seconds, a language code. */
function SettingField(props: {
  id: string
  input: 'color' | 'url' | 'seconds' | 'language'
  value: string
  onChange: (value: string) => void
}) {
  const { id, input, value, onChange } = props
  const onInput = (e: { currentTarget: HTMLInputElement }) => onChange(e.currentTarget.value)
  if (input === 'color') return <input type="color" id={id} value={value} onInput={onInput} />
  if (input === 'seconds') return <input type="number" id={id} min={0} value={value} onInput={onInput} />
  if (input === 'url') return <input type="url" id={id} value={value} spellcheck={false} onInput={onInput} />
  return <input type="text" id={id} value={value} spellcheck={false} autocomplete="off" onInput={onInput} />
}
