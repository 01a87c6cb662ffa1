/**
 * The console's application: rendered into the shell the server sent (plugins/console/console.pages.ts), in the
 * page's language, with the session's CSRF token from its meta tags.
 */
import { render } from 'preact'
import { readSession } from './api.js'
import { Dashboard } from './dashboard.js'
import { isLanguage } from './messages/index.js'

const root = document.getElementById('app')
const lang = document.documentElement.lang
if (root) render(<Dashboard session={readSession()} language={isLanguage(lang) ? lang : 'en'} />, root)
