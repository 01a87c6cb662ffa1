import { reasonOf } from './api.js'
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
      (error: unknown) => (load.value = { state: 'error', reason: reasonOf(error) }),
    )
  }, [attempt.value])
  return { current: load.value, reload: () => attempt.value++ }
}

/**
 * One change sent to the API from a form or a button: busy while it runs (its control is disabled, no double
 * submit), then whether it was done (for a "Saved" status) or the API's refusal, kept for the section to say in its
 * own words. `run` answers whether it succeeded. Every section's changes go through it.
 */
export function useAction(): {
  busy: boolean
  done: boolean
  problem: string
  run: (work: () => Promise<unknown>) => Promise<boolean>
} {
  const busy = useSignal(false)
  const done = useSignal(false)
  const problem = useSignal('')
  async function run(work: () => Promise<unknown>): Promise<boolean> {
    busy.value = true
    done.value = false
    problem.value = ''
    try {
      await work()
      done.value = true
      return true
    } catch (error) {
      problem.value = reasonOf(error)
      return false
    } finally {
      busy.value = false
    }
  }
  return { busy: busy.value, done: done.value, problem: problem.value, run }
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

/**
 * What a page shows until its load is ready: Loading, or why it failed with a way to try again and `children` (a way
 * back).
 */
export function NotReady(props: {
  language: Language
  load: { current: Load<unknown>; reload: () => void }
  children?: ComponentChildren
}) {
  const { language, load, children } = props
  if (load.current.state !== 'error') return <Loading language={language} />
  return (
    <LoadProblem language={language} reason={load.current.reason} onRetry={load.reload}>
      {children}
    </LoadProblem>
  )
}
