/** Small controls the people section's screens share: a problem line, an action asked twice. */
import { ConfirmButton as Confirmed } from './confirm.js'
import { type Language, message } from './messages/index.js'
import type { Session } from './api.js'
import { type PeopleQuery, type Tab, peopleHref } from './people-query.js'

/** Why the API refused an action, or nothing. */
export function Problem(props: { language: Language; reason: string | null }) {
  return props.reason ? (
    <p class="problem" role="alert">
      {message(props.language, 'state.error', { reason: props.reason })}
    </p>
  ) : null
}

/**
 * A button whose action is asked once more (a deletion, a new key that replaces the old one), in the people section's
 * words: `label` offers it, `question` asks, `yes` does it. A refusal of the API is shown beside it.
 */
export function ConfirmButton(props: {
  language: Language
  label: string
  question: string
  yes: string
  danger?: boolean
  onConfirm: () => Promise<void>
}) {
  const { language, label, question, yes, danger, onConfirm } = props
  return (
    <Confirmed
      label={label}
      question={question}
      yes={yes}
      no={message(language, 'people.cancel')}
      refused={(reason) => message(language, 'state.error', { reason })}
      buttonClass={danger ? 'danger' : undefined}
      danger={danger}
      onConfirm={onConfirm}
    />
  )
}

/** The link from an opened user, group, role or profile back to its tab's list. */
export function BackTo(props: { session: Session; language: Language; tab: Exclude<Tab, 'accesses'> }) {
  const { session, language, tab } = props
  return (
    <p>
      <a href={peopleHref(session.base, { tab })}>{message(language, `people.${tab}.back`)}</a>
    </p>
  )
}

/** What each tab of the section is given. */
export interface TabProps {
  session: Session
  language: Language
  /** The slug of the platform whose people are shown. */
  platform: string
  query: PeopleQuery
}
