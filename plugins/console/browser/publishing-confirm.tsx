import { ConfirmButton as Confirmed } from './confirm.js'
import { type Language, message } from './messages/index.js'

/**
 * A button that deletes (or unpublishes) after one confirmation, in the publishing section's words: the question
 * names what goes, **Yes** does it, **No** puts the button back. The group is named by the button's text.
 */
export function ConfirmButton(props: {
  language: Language
  /** The button's text (`Delete the site News`). */
  label: string
  /** What the confirmation asks (`Delete News with its streams...?`). */
  question: string
  onConfirm: () => Promise<unknown>
  onDone: () => void
}) {
  const { language, label, question, onConfirm, onDone } = props
  return (
    <Confirmed
      label={label}
      name={label}
      question={question}
      yes={message(language, 'publishing.confirm.yes')}
      no={message(language, 'publishing.confirm.no')}
      refused={(reason) => message(language, 'publishing.refused', { reason })}
      buttonClass="quiet"
      danger
      onConfirm={onConfirm}
      onDone={onDone}
    />
  )
}
