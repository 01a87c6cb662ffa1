import { useSignal } from '@preact/signals'
import { type Session, childText, putXml } from './api.js'
import { useAction } from './load.js'
import { bytes } from './format.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/** The dialects of `timestamps` (docs/api/platforms.md); '' is the installation's `api.timestamps`. */
const DIALECTS = ['', 'iso8601', 'unix'] as const

/** Installation administrators hold it: the only ones the API lets change the quotas. */
const INSTALLATION_ADMIN = 'instance.view'

export interface PlatformSettings {
  path: string
  name: string
  timestamps: string
  maxUsers: string
  maxSpace: string
  users: number
  space: number
}

/** The platform's info (`GET /platform/<slug>`) as the form holds it. */
export function platformSettingsOf(path: string, doc: Document): PlatformSettings {
  return {
    path,
    name: childText(doc, 'name'),
    timestamps: childText(doc, 'timestamps'),
    maxUsers: childText(doc, 'max_users'),
    maxSpace: childText(doc, 'max_space'),
    users: Number(childText(doc, 'created_users') || 0),
    space: Number(childText(doc, 'used_space') || 0),
  }
}

/**
 * The platform's own fields (`PUT /platform/<slug>`, partial): its name and the timestamp dialect, for whoever may
 * edit it; the quotas (`max_users`, `max_space`) as fields for installation administrators only, read-only for the
 * others (the API answers them 403). The answer, the platform as it is now, is shown.
 */
export function PlatformSettingsForm(props: { session: Session; language: Language; platform: PlatformSettings }) {
  const { session, language } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const saved = useSignal(props.platform)
  const name = useSignal(saved.value.name)
  const timestamps = useSignal(saved.value.timestamps)
  const maxUsers = useSignal(saved.value.maxUsers)
  const maxSpace = useSignal(saved.value.maxSpace)
  const action = useAction()
  const quotasEditable = session.flags.has(INSTALLATION_ADMIN)

  async function submit(event: Event) {
    event.preventDefault()
    const form: Record<string, string> = { name: name.value, timestamps: timestamps.value }
    if (quotasEditable) Object.assign(form, { max_users: maxUsers.value, max_space: maxSpace.value })
    await action.run(async () => {
      saved.value = platformSettingsOf(saved.value.path, await putXml(session, saved.value.path, form))
    })
  }

  const current = saved.value
  /** One quota's use against its limit (0: none), in the dashboard's words, each figure written by `format`. */
  const usage = (
    kind: 'dashboard.users' | 'dashboard.storage',
    used: number,
    max: number,
    format: (n: number) => string,
  ) =>
    max > 0
      ? t(`${kind}.used`, { used: format(used), max: format(max) })
      : t(`${kind}.unlimited`, { used: format(used) })
  const size = (value: number) => bytes(value, language)
  return (
    <form class="card" aria-labelledby="settings-platform-heading" onSubmit={submit} noValidate>
      <h2 id="settings-platform-heading">{t('settings.platform', { name: current.name })}</h2>
      <label for="settings-name">{t('settings.name')}</label>
      <input type="text" id="settings-name" value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
      <label for="settings-timestamps">{t('settings.timestamps')}</label>
      <select
        id="settings-timestamps"
        value={timestamps.value}
        aria-describedby="settings-timestamps-hint"
        onChange={(e) => (timestamps.value = e.currentTarget.value)}
      >
        {DIALECTS.map((dialect) => (
          <option key={dialect} value={dialect}>
            {t(`settings.timestamps.${dialect || 'default'}`)}
          </option>
        ))}
      </select>
      <p class="hint" id="settings-timestamps-hint">
        {t('settings.timestamps.hint')}
      </p>
      <fieldset>
        <legend>{t('settings.quotas')}</legend>
        <dl class="facts">
          <dt>{t('dashboard.users')}</dt>
          <dd>{usage('dashboard.users', current.users, Number(current.maxUsers), String)}</dd>
          <dt>{t('dashboard.storage')}</dt>
          <dd>{usage('dashboard.storage', current.space, Number(current.maxSpace), size)}</dd>
        </dl>
        {quotasEditable ? (
          <div>
            <label for="settings-max-users">{t('settings.max_users')}</label>
            <input
              type="number"
              id="settings-max-users"
              min={0}
              value={maxUsers.value}
              onInput={(e) => (maxUsers.value = e.currentTarget.value)}
            />
            <label for="settings-max-space">{t('settings.max_space')}</label>
            <input
              type="number"
              id="settings-max-space"
              min={0}
              value={maxSpace.value}
              onInput={(e) => (maxSpace.value = e.currentTarget.value)}
            />
          </div>
        ) : (
          <p class="hint">{t('settings.quotas.read_only')}</p>
        )}
      </fieldset>
      <p role="status" class={action.problem ? 'problem' : 'notice'}>
        {action.problem ? t('settings.problem', { reason: action.problem }) : action.done ? t('settings.saved') : ''}
      </p>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? t('settings.working') : t('settings.save')}
        </button>
      </div>
    </form>
  )
}
