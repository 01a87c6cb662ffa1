import { useSignal } from '@preact/signals'
import type { ComponentChildren } from 'preact'
import { useEffect } from 'preact/hooks'
import { type Language, message } from './messages/index.js'

export type Load<T> = { state: 'loading' } | { state: 'error'; reason: string } | { state: 'ready'; value: T }

/**
 * What a section shows while `fetch` runs, once it answered, or why it failed; `reload` runs it again. A reload keeps
 * what is shown until the new answer comes (a list does not blink after each change).
 */
export function useLoad<T>(fetch: () => Promise<T>): { current: Load<T>; reload: () => void } {
  const load = useSignal<Load<T>>({ state: 'loading' })
  const attempt = useSignal(0)
  useEffect(() => {
    if (load.value.state === 'error') load.value = { state: 'loading' }
    fetch().then(
      (value) => (load.value = { state: 'ready', value }),
      (error: unknown) =>
        (load.value = { state: 'error', reason: error instanceof Error ? error.message : String(error) }),
    )
  }, [attempt.value])
  return { current: load.value, reload: () => attempt.value++ }
}

/** The loading state of a section. */
export const Loading = (props: { language: Language }) => (
  <p role="status">{message(props.language, 'state.loading')}</p>
)

/** Why a section could not be loaded, and a way to try again. */
export function LoadProblem(props: {
  language: Language
  reason: string
  onRetry: () => void
  children?: ComponentChildren
}) {
  const { language, reason, onRetry, children } = props
  return (
    <div role="alert">
      <p>{message(language, 'state.error', { reason })}</p>
      <button type="button" onClick={onRetry}>
        {message(language, 'state.retry')}
      </button>
      {children}
    </div>
  )
}
