import { useSignal } from '@preact/signals'
import { type Session, childText, deleteAt, getPage, pathOf, postXml } from './api.js'
import { Confirm } from './confirm.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { PresetForm } from './settings-preset-form.js'
import type { PresetKind } from './settings-preset-kinds.js'

/** Most themes (or behaviors) listed: far more than a platform keeps (the API pages them all the same). */
const MOST = 500

interface Preset {
  name: string
  /** Its API path, `/platform/<p>/player_theme/<slug>`. */
  path: string
}

type Step = { step: 'idle' } | { step: 'edit'; path: string } | { step: 'confirm-delete'; preset: Preset }

/**
 * The platform's player themes or behaviors: the list (`GET`), each with **Change** (the form) and **Delete**
 * (confirmed), and a new one by its name (`POST`), opened in the form at once to set it up (the API gives a new
 * one the default settings). Each control is offered to profiles holding its flag (`player_theme.create`...); the
 * API checks it again.
 */
export function PresetsCard(props: { session: Session; language: Language; platformPath: string; kind: PresetKind }) {
  const { session, language, platformPath, kind } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const listPath = `${platformPath}/${kind.resource}`
  const may = (action: 'create' | 'edit' | 'delete') => session.flags.has(`${kind.resource}.${action}`)
  const step = useSignal<Step>({ step: 'idle' })
  const newName = useSignal('')
  const notice = useSignal('')
  const action = useAction()
  const { current, reload } = useLoad(async () => {
    const { doc } = await getPage(session, listPath, 0, MOST)
    return Array.from(doc.documentElement.children)
      .filter((element) => element.tagName === kind.resource)
      .map((element) => ({
        name: childText(element, 'name'),
        path: pathOf(session, element.getAttribute('href') || ''),
      }))
  })

  /** One change; the notice of the last one goes (a refusal or a new notice takes its place). */
  function act(work: () => Promise<void>) {
    notice.value = ''
    return action.run(work)
  }

  const create = (event: Event) => {
    event.preventDefault()
    return act(async () => {
      const doc = await postXml(session, listPath, { name: newName.value })
      const name = childText(doc, 'name')
      newName.value = ''
      notice.value = t(`settings.${kind.kind}.created`, { name })
      step.value = { step: 'edit', path: pathOf(session, doc.documentElement.getAttribute('href') || '') }
      reload()
    })
  }

  const remove = (preset: Preset) =>
    act(async () => {
      await deleteAt(session, preset.path)
      step.value = { step: 'idle' }
      notice.value = t('settings.preset.deleted', { name: preset.name })
      reload()
    })

  const headingId = `settings-${kind.kind}-heading`
  const shown = step.value
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t(`settings.${kind.kind}`)}</h2>
      <p class="hint">{t(`settings.${kind.kind}.intro`)}</p>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {current.state === 'ready' && current.value.length === 0 ? <p>{t(`settings.${kind.kind}.empty`)}</p> : null}
      {current.state === 'ready' && current.value.length ? (
        <ul class="settings-presets">
          {current.value.map((preset) => (
            <li key={preset.path}>
              <span>{preset.name}</span>
              {may('edit') ? (
                <button type="button" class="quiet" onClick={() => (step.value = { step: 'edit', path: preset.path })}>
                  {t(`settings.${kind.kind}.edit`, { name: preset.name })}
                </button>
              ) : null}
              {may('delete') ? (
                <button type="button" class="quiet" onClick={() => (step.value = { step: 'confirm-delete', preset })}>
                  {t(`settings.${kind.kind}.delete`, { name: preset.name })}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <p role="status" class="notice">
        {notice.value}
      </p>
      {action.problem ? (
        <p class="problem" role="alert">
          {t('settings.problem', { reason: action.problem })}
        </p>
      ) : null}
      {shown.step === 'edit' ? (
        <PresetForm
          key={shown.path}
          session={session}
          language={language}
          kind={kind}
          path={shown.path}
          onSaved={(name) => {
            step.value = { step: 'idle' }
            notice.value = t('settings.preset.saved', { name })
            reload()
          }}
          onCancel={() => (step.value = { step: 'idle' })}
        />
      ) : null}
      {shown.step === 'confirm-delete' ? (
        <Confirm
          key={shown.preset.path}
          dialog
          question={t(`settings.${kind.kind}.delete.confirm`, { name: shown.preset.name })}
          yes={t('settings.preset.delete.yes')}
          no={t('settings.cancel')}
          danger
          busy={action.busy}
          onYes={() => remove(shown.preset)}
          onNo={() => (step.value = { step: 'idle' })}
        />
      ) : null}
      {may('create') ? (
        <form class="settings-new" onSubmit={create}>
          <div>
            <label for={`${headingId}-new`}>{t(`settings.${kind.kind}.new`)}</label>
            <input
              type="text"
              id={`${headingId}-new`}
              value={newName.value}
              onInput={(e) => (newName.value = e.currentTarget.value)}
            />
          </div>
          <button type="submit" disabled={action.busy}>
            {t(`settings.${kind.kind}.create`)}
          </button>
        </form>
      ) : null}
    </section>
  )
}
