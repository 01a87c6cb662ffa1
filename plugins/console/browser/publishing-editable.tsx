import { useSignal } from '@preact/signals'
import type { ComponentChildren } from 'preact'
import type { Language } from './messages/index.js'
import { ConfirmButton } from './publishing-confirm.js'

/** What closes a form opened in place: a save (the page then reloads) or a cancel. */
export interface Close {
  onSaved: () => void
  onCancel: () => void
}

/**
 * One thing a publishing page shows (a site, a stream, a resource, a widget): its facts, and for those who publish a
 * button that opens its form in their place, and its deletion after a confirmation.
 */
export function Editable(props: {
  language: Language
  /** The button that opens the form; null where the profile does not publish (no change, no deletion offered). */
  edit: string | null
  form: (close: Close) => ComponentChildren
  onSaved: () => void
  remove: { label: string; question: string; onConfirm: () => Promise<unknown>; onDone: () => void }
  /** The facts, shown while the form is closed. */
  children: ComponentChildren
}) {
  const { language, edit, form, onSaved, remove, children } = props
  const editing = useSignal(false)
  if (editing.value) {
    return (
      <>
        {form({
          onSaved: () => {
            editing.value = false
            onSaved()
          },
          onCancel: () => (editing.value = false),
        })}
      </>
    )
  }
  return (
    <>
      {children}
      {edit ? (
        <div class="actions">
          <button type="button" class="quiet" onClick={() => (editing.value = true)}>
            {edit}
          </button>
          <ConfirmButton language={language} {...remove} />
        </div>
      ) : null}
    </>
  )
}
