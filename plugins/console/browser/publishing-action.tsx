import { type Language, message } from './messages/index.js'

/** The API's refusal of a change, said where the change was asked. */
export function Refusal(props: { language: Language; problem: string }) {
  if (!props.problem) return null
  return (
    <p class="problem" role="alert">
      {message(props.language, 'publishing.refused', { reason: props.problem })}
    </p>
  )
}

/**
 * The end of a publishing form: the API's refusal of its last submit, the submit button (`submit`, disabled while it
 * runs) and **Cancel** where the form can be closed.
 */
export function FormActions(props: {
  language: Language
  action: { busy: boolean; problem: string }
  submit: string
  onCancel?: () => void
}) {
  const { language, action, submit, onCancel } = props
  return (
    <>
      <Refusal language={language} problem={action.problem} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {submit}
        </button>
        {onCancel ? (
          <button type="button" class="quiet" onClick={onCancel}>
            {message(language, 'publishing.cancel')}
          </button>
        ) : null}
      </div>
    </>
  )
}
