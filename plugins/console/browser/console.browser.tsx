/**
 * The console's application: renders the section the server named (`data-section` of the shell,
 * plugins/console/console.pages.ts) in the page's language, with the session's CSRF token and flags from its meta tags.
 */
import { render } from 'preact'
import { readSession } from './api.js'
import { Dashboard } from './dashboard.js'
import { Library } from './library.js'
import { isLanguage } from './messages/index.js'

const root = document.getElementById('app')
const lang = document.documentElement.lang
const language = isLanguage(lang) ? lang : 'en'
const session = readSession()
if (root) {
  render(
    root.dataset.section === 'library' ? (
      <Library session={session} language={language} />
    ) : (
      <Dashboard session={session} language={language} />
    ),
    root,
  )
}
