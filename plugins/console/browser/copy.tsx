import { useSignal } from '@preact/signals'
import type { ComponentChildren } from 'preact'
import { type Language, message } from './messages/index.js'

/**
 * A code, link or secret to copy: shown in a read-only field (selectable, the fallback when the browser refuses the
 * clipboard) with a button that copies it in one click, then a visible status: `copied`, or that the browser refused
 * (the field is then selected for Ctrl+C). `children` are more buttons beside the copy one.
 */
export function CopyField(props: {
  language: Language
  id: string
  label: string
  value: string
  button: string
  copied: string
  hint?: string
  children?: ComponentChildren
}) {
  const { language, id, label, value, button, copied, hint, children } = props
  const state = useSignal<'idle' | 'copied' | 'refused'>('idle')
  // What was copied: a new value (another size, another start time) is not said to be copied yet.
  const copiedValue = useSignal('')
  async function copy() {
    try {
      await navigator.clipboard.writeText(value)
      state.value = 'copied'
    } catch {
      // No clipboard (an http address, a refused permission): the field is selected for Ctrl+C.
      const field = document.getElementById(id)
      if (field instanceof HTMLInputElement) field.select()
      state.value = 'refused'
    }
    copiedValue.value = value
  }
  const current = copiedValue.value === value ? state.value : 'idle'
  return (
    <div>
      <label for={id}>{label}</label>
      <input
        type="text"
        id={id}
        readOnly
        value={value}
        spellcheck={false}
        autocomplete="off"
        aria-describedby={hint ? `${id}-hint` : undefined}
        onFocus={(event) => (event.currentTarget as HTMLInputElement).select()}
      />
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <div class="actions">
        <button type="button" onClick={copy}>
          {button}
        </button>
        {children}
      </div>
      <p role="status" class={current === 'refused' ? 'problem' : 'notice'}>
        {current === 'copied' ? copied : current === 'refused' ? message(language, 'copy.refused') : ''}
      </p>
    </div>
  )
}
