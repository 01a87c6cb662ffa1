import {
  type BrowserScript,
  type HttpContext,
  type Reply,
  type Router,
  browserScript,
  browserScriptReply,
  cookieValue,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { languageCookie, pageLanguage } from './console-cookies.js'
import type { ConsoleDeps } from './console.deps.js'
import { SECTIONS, type Section, shellPage } from './console.pages.js'
import { isLanguage } from './browser/messages/index.js'
import { liveSession } from './sessions.service.js'
import { CONSOLE_PAGE_OPTIONS, seeOther } from './sign-in.routes.js'

/** Each section's script (plugins/console/browser/console-<section>.browser.tsx as built): a page loads its own. */
export function consoleScripts(): Record<Section, BrowserScript> {
  const scripts = {} as Record<Section, BrowserScript>
  for (const section of Object.keys(SECTIONS) as Section[]) scripts[section] = browserScript(`console-${section}`)
  return scripts
}

/** `GET /console`, `/console/library`...: a section of the signed-in console, or the way to the sign-in page. */
async function consolePage(c: HttpContext, deps: ConsoleDeps, script: BrowserScript, section: Section): Promise<Reply> {
  const id = cookieValue(c.req, deps.cookieName)
  const session = id ? await liveSession(c.em, id, deps.config) : undefined
  const user = session && (await deps.credentials.findByUsername(session.username))
  if (!session || !user?.isActive) return seeOther(c, '/console/sign-in')
  const page = shellPage({
    language: pageLanguage(c),
    base: c.links.base,
    username: session.username,
    csrf: session.csrf,
    script: `${c.links.base}/console/assets/${script.file}`,
    section,
    flags: [...user.flags].sort(),
  })
  return reply.page(200, page, CONSOLE_PAGE_OPTIONS)
}

/**
 * `GET /console/language?to=fr&back=/console`: keeps the choice in a cookie and goes back. `back` is a console
 * address only: the switch never sends anyone to another site.
 */
function switchLanguage(c: HttpContext, deps: ConsoleDeps): Reply {
  const query = c.query()
  const to = query.to
  const back = typeof query.back === 'string' && /^\/console(?:[/?#]|$)/.test(query.back) ? query.back : '/console'
  if (!isLanguage(to)) return seeOther(c, back)
  return seeOther(c, back, languageCookie(to, deps.secure))
}

function asset(c: HttpContext, scripts: readonly BrowserScript[]): Reply {
  const script = scripts.find((candidate) => candidate.file === c.param('file'))
  if (!script) throw notFound('No such console asset.')
  return browserScriptReply(c, script)
}

/** The console's page, its language switch and its script. */
export function consolePageRoutes(r: Router, deps: ConsoleDeps): void {
  const scripts = consoleScripts()
  for (const section of Object.keys(SECTIONS) as Section[]) {
    r.get(SECTIONS[section].path, (c) => consolePage(c, deps, scripts[section], section), {
      public: true,
      produces: 'text/html',
      permission: 'public: the session cookie decides (signed out: 303 to the sign-in page)',
    })
  }
  r.get('/console/language', (c) => switchLanguage(c, deps), {
    public: true,
    produces: 'text/html',
    permission: 'public: sets the language cookie of the console pages',
  })
  r.get('/console/assets/:file', (c) => asset(c, Object.values(scripts)), {
    public: true,
    produces: 'text/javascript',
    permission: 'public: the static scripts of the console (no data)',
  })
}
