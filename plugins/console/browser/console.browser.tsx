/**
 * The console's application: renders the section the server named (`data-section` of the shell,
 * plugins/console/console.pages.ts) in the page's language, with the session's CSRF token and flags from its meta tags.
 */
import { type FunctionComponent, render } from 'preact'
import { type Session, readSession } from './api.js'
import { Dashboard } from './dashboard.js'
import { FilePage } from './file-page.js'
import { Jobs } from './jobs.js'
import { Library } from './library.js'
import { type Language, isLanguage } from './messages/index.js'
import { People } from './people.js'
import { Publishing } from './publishing.js'
import { Settings } from './settings.js'
import { Webhooks } from './webhooks.js'

/** Each section of console.pages.ts's SECTIONS, by name. */
const SECTIONS: Record<string, FunctionComponent<{ session: Session; language: Language }>> = {
  dashboard: Dashboard,
  library: Library,
  file: FilePage,
  publishing: Publishing,
  people: People,
  webhooks: Webhooks,
  jobs: Jobs,
  settings: Settings,
}

const root = document.getElementById('app')
const lang = document.documentElement.lang
const language = isLanguage(lang) ? lang : 'en'
const session = readSession()
if (root) {
  const Section = SECTIONS[root.dataset.section || ''] ?? Dashboard
  render(<Section session={session} language={language} />, root)
}
