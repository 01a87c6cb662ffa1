/**
 * Asking once more before a change that cannot be undone (a deletion, a key or secret that replaces the old one):
 * the question and its two answers, and a button that opens them and runs the change on **Yes**.
 */
import { useSignal } from '@preact/signals'
import { useEffect, useId, useRef } from 'preact/hooks'
import { useAction } from './load.js'

/**
 * The question and its answers. Named by the question, or by `name` where the question is long; `dialog` shows it as
 * a card that interrupts the page (`alertdialog`) rather than an inline group. The keyboard goes on from **Yes**: the
 * control that asked is usually gone.
 */
export function Confirm(props: {
  question: string
  yes: string
  no: string
  /** Yes is red: what goes cannot come back. */
  danger?: boolean
  busy?: boolean
  name?: string
  dialog?: boolean
  onYes: () => void
  onNo: () => void
}) {
  const { question, yes, no, danger, busy, name, dialog, onYes, onNo } = props
  const id = useId()
  const yesButton = useRef<HTMLButtonElement>(null)
  useEffect(() => yesButton.current?.focus(), [])
  return (
    <div
      class={dialog ? 'card' : undefined}
      role={dialog ? 'alertdialog' : 'group'}
      aria-modal={dialog ? 'false' : undefined}
      aria-label={name}
      aria-labelledby={name ? undefined : id}
    >
      <p id={id}>{question}</p>
      <div class="actions">
        <button type="button" ref={yesButton} class={danger ? 'danger' : undefined} disabled={busy} onClick={onYes}>
          {yes}
        </button>
        <button type="button" class="quiet" onClick={onNo}>
          {no}
        </button>
      </div>
    </div>
  )
}

/**
 * A button whose change is asked once more: `label` offers it, `question` asks, `yes` runs `onConfirm`, then `onDone`;
 * `no` puts the button back. A refusal of the API is shown beside it, in the section's words (`refused`).
 */
export function ConfirmButton(props: {
  label: string
  question: string
  yes: string
  no: string
  refused: (reason: string) => string
  /** The class of the button that asks (`quiet`, `danger`); Yes is red when it is `danger`. */
  buttonClass?: string
  danger?: boolean
  /** The group's name, where it is not the question. */
  name?: string
  onConfirm: () => Promise<unknown>
  onDone?: () => void
}) {
  const { label, question, yes, no, refused, buttonClass, danger, name, onConfirm, onDone } = props
  const asking = useSignal(false)
  const action = useAction()
  async function confirm() {
    if (await action.run(onConfirm)) {
      asking.value = false
      onDone?.()
    }
  }
  return (
    <div>
      {asking.value ? (
        <Confirm
          question={question}
          yes={yes}
          no={no}
          danger={danger}
          busy={action.busy}
          name={name}
          onYes={confirm}
          onNo={() => (asking.value = false)}
        />
      ) : (
        <button type="button" class={buttonClass} onClick={() => (asking.value = true)}>
          {label}
        </button>
      )}
      {action.problem ? (
        <p class="problem" role="alert">
          {refused(action.problem)}
        </p>
      ) : null}
    </div>
  )
}
