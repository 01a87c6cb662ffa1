/** What each panel of the file page does with a change: run it once at a time, then say how it went. */
import { useSignal } from '@preact/signals'
import type { JSX } from 'preact'
import { useAction as useChange } from './load.js'
import type { MessageKey } from './messages/index.js'

export type T = (key: MessageKey, values?: Record<string, string | number>) => string

export interface Action {
  /** Whether a change is under way (its button is disabled meanwhile). */
  busy: boolean
  /** Runs `act`; on success says `done` (and calls `then`), on refusal the API's reason. */
  run: (act: () => Promise<unknown>, done: string, then?: () => void) => Promise<void>
  /** The outcome of the last change, announced to screen readers; null before any. */
  outcome: JSX.Element | null
}

export function useAction(t: T): Action {
  const change = useChange()
  const done = useSignal('')
  async function run(act: () => Promise<unknown>, text: string, then?: () => void) {
    done.value = ''
    if (await change.run(act)) {
      done.value = text
      then?.()
    }
  }
  return {
    busy: change.busy,
    run,
    outcome: change.problem ? (
      <p role="alert" class="problem">
        {t('file.refused', { reason: change.problem })}
      </p>
    ) : done.value ? (
      <p role="status" class="notice">
        {done.value}
      </p>
    ) : null,
  }
}

/** The text of a file input's chosen file, or null. */
export const chosenFile = (form: HTMLFormElement, name: string): File | null =>
  (form.elements.namedItem(name) as HTMLInputElement | null)?.files?.[0] ?? null

/** A multipart body (`language`, then the file...), in the order given: what the upload routes read. */
export function multipart(fields: Record<string, string | Blob>): FormData {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  return body
}

/** What follows an upload that succeeded: its form emptied for the next one, then `then` (the page reloads). */
export const emptied = (form: HTMLFormElement, then: () => void) => (): void => {
  form.reset()
  then()
}
