/**
 * Renders one section of the console (`data-section` of the shell, plugins/console/console.pages.ts) in the page's
 * language, with the session's CSRF token and flags from its meta tags. Each section is a script of its own
 * (`console-<section>.browser.tsx`): a page loads its own section, not every other one.
 */
import { type FunctionComponent, render } from 'preact'
import { type Session, readSession } from './api.js'
import { type Language, isLanguage } from './messages/index.js'

export type SectionView = FunctionComponent<{ session: Session; language: Language }>

export function mount(Section: SectionView): void {
  const root = document.getElementById('app')
  if (!root) return
  const lang = document.documentElement.lang
  // The shell's "Loading…" (shown until this script runs) gives way to the section: render() keeps what it finds.
  root.replaceChildren()
  render(<Section session={readSession()} language={isLanguage(lang) ? lang : 'en'} />, root)
}
