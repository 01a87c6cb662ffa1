import { SafeHtml, html } from '../../src/kernel/index.js'
import { type Language, type MessageKey, message } from './browser/messages/index.js'

/** Fewest characters of a password chosen in the console (docs/console.md says why 12). */
export const MIN_PASSWORD = 12
/** Most characters of a password: the users' field limit (docs/api/identity.md). */
export const MAX_PASSWORD = 128

/**
 * The console's look, shared by its server-rendered pages and the application: system fonts, contrast above
 * WCAG AA (4.5:1) in both schemes, a visible focus ring, nothing wider than the screen down to 320 px.
 */
const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1b1f24;--muted:#4d5560;--card:#fff;--line:#c9ced6;--accent:#0b57d0;--on-accent:#fff;--bad:#a61b1b;--ok:#136c2e}
@media (prefers-color-scheme:dark){:root{--bg:#15181c;--fg:#eef0f3;--muted:#b7bec8;--card:#1f2328;--line:#4a515b;--accent:#8ab4f8;--on-accent:#10161f;--bad:#ffb4ab;--ok:#8fd6a0}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg);overflow-wrap:anywhere}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:8px;z-index:9}
header.bar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:8px 16px;background:var(--card);border-bottom:1px solid var(--line)}
header.bar .brand{font-weight:600;margin:0;font-size:1.1rem}
header.bar form{display:inline}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0;padding:0}
main{max-width:64rem;margin:0 auto;padding:16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px;margin:0 0 16px}
.narrow{max-width:26rem;margin:8vh auto 0}
h1{font-size:1.5rem;margin:0 0 12px}h2{font-size:1.15rem;margin:0 0 8px}
label{display:block;font-weight:600;margin:12px 0 4px}
input[type=text],input[type=password],input[type=search],select{width:100%;font:inherit;padding:8px;border:1px solid var(--muted);border-radius:6px;background:var(--bg);color:var(--fg)}
input[type=checkbox]{width:1.25rem;height:1.25rem;margin:0}
button,.button{font:inherit;padding:8px 14px;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none;display:inline-block}
button.quiet{background:transparent;color:var(--accent)}
.actions{margin-top:16px;display:flex;flex-wrap:wrap;gap:8px}
.hint{color:var(--muted);font-size:.9rem;margin:4px 0 0}
.problem{color:var(--bad);font-weight:600}
.notice{color:var(--ok);font-weight:600}
.grid{display:grid;gap:16px;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr))}
meter{width:100%;height:1rem}
button.danger{background:var(--bad);border-color:var(--bad);color:var(--bg)}
ul.plain{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:8px 16px}
.filters{display:grid;gap:0 12px;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));align-items:end}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:middle}
tbody th{font-weight:400}
td{white-space:nowrap}
.drop{border:2px dashed var(--muted);border-radius:8px;padding:12px}.drop.over{border-color:var(--accent);background:var(--bg)}
ul.uploads{list-style:none;padding:0;margin:12px 0 0}ul.uploads li{padding:8px 0;border-bottom:1px solid var(--line)}
ul.uploads p{margin:0}ul.uploads .name{font-weight:600}progress{width:100%;height:1rem}
.hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
textarea,input[type=number],input[type=url],input[type=email],input[type=datetime-local],input[type=color]{width:100%;font:inherit;padding:8px;border:1px solid var(--muted);border-radius:6px;background:var(--bg);color:var(--fg)}
textarea{min-height:5rem;resize:vertical}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:4px 16px;margin:0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
pre.code{white-space:pre-wrap;word-break:break-all;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px;margin:8px 0}
fieldset{border:1px solid var(--line);border-radius:6px;margin:12px 0;padding:8px 12px}legend{font-weight:600}
/* area:file */
.preview{display:block;width:100%;height:auto;max-height:70vh;background:#000}audio.preview{background:none}img.thumb{display:block;max-width:10rem;height:auto;margin:4px 0}ul.snapshots label{font-weight:400;margin:0}input[type=date],input[type=file]{width:100%;font:inherit;padding:8px;border:1px solid var(--muted);border-radius:6px;background:var(--bg);color:var(--fg)}ul.subtitles li{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:4px 0}
/* area:publishing */
@media (max-width:30rem){.publishing dl.facts{grid-template-columns:1fr}.publishing dl.facts dd{margin-bottom:8px}}
ul.items{list-style:none;padding:0;margin:0}ul.items>li{padding:8px 0;border-bottom:1px solid var(--line)}ul.items>li:last-child{border-bottom:0}
/* area:people */
.tabs{margin:0 0 12px}.tabs a[aria-current=page]{font-weight:700;text-decoration:none}table.people th{white-space:nowrap;overflow-wrap:normal}table.people td{white-space:normal;min-width:8rem}.flags label,label.check{display:flex;gap:8px;align-items:center;font-weight:400}.flags label{margin:0}
/* area:webhooks */
label.webhooks-choice{font-weight:400;display:flex;gap:8px;align-items:center}td.webhooks-response{white-space:pre-wrap;min-width:12rem}table.webhooks-log th{overflow-wrap:normal}@media (max-width:40rem){dl.webhooks-facts{grid-template-columns:1fr}dl.webhooks-facts dd{margin-bottom:8px}}
/* area:settings */
label.settings-choice{font-weight:400;display:flex;gap:8px;align-items:center}input[type=color]{height:2.75rem;padding:2px}
ul.settings-presets{list-style:none;padding:0;margin:0}ul.settings-presets li{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;padding:4px 0;border-bottom:1px solid var(--line)}ul.settings-presets span{flex:1 1 8rem}form.settings-new{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end;margin-top:8px}
/* area:jobs */
table.jobs thead th{white-space:nowrap}table.jobs tbody th{min-width:10rem}table.jobs td.error{white-space:normal;min-width:14rem}
`

export interface PageShell {
  language: Language
  title: string
  body: SafeHtml
  /** The application's script and the session's data for it: only on the signed-in console. */
  app?: { script: string; csrf: string; username: string; base: string; flags: readonly string[] }
}

/** A whole console page: the document, its language, the shared look, the application's script where there is one. */
export function consoleDocument({ language, title, body, app }: PageShell): string {
  const t = (key: MessageKey) => message(language, key)
  return html`<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><title>${title} · ${t('app.name')}</title>
${app ? html`<meta name="mediactl-csrf" content="${app.csrf}"><meta name="mediactl-user" content="${app.username}"><meta name="mediactl-base" content="${app.base}"><meta name="mediactl-flags" content="${app.flags.join(' ')}">` : ''}
<style>${new SafeHtml(STYLE)}</style>
${app ? html`<script src="${app.script}" defer></script>` : ''}
</head><body>${body}</body></html>`.markup
}

/** The language switch: a link to the same page in the other language (the choice is kept in a cookie). */
export function languageSwitch(language: Language, base: string, back: string): SafeHtml {
  const other: Language = language === 'en' ? 'fr' : 'en'
  const href = `${base}/console/language?to=${other}&back=${encodeURIComponent(back)}`
  return html`<a href="${href}" lang="${other}" hreflang="${other}" aria-label="${message(language, 'language.switch.label')}">${message(language, 'language.switch')}</a>`
}

export interface SignInView {
  language: Language
  base: string
  username?: string
  problem?: string
  notice?: string
}

/** The sign-in form; works without the application's script (a plain form post). */
export function signInPage({ language, base, username, problem, notice }: SignInView): string {
  const t = (key: MessageKey) => message(language, key)
  const body = html`<main id="content" class="narrow">
<div class="card">
<h1>${t('sign_in.title')}</h1>
${problem ? html`<p class="problem" role="alert" id="sign-in-problem">${problem}</p>` : ''}
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<form method="post" action="${base}/console/sign-in">
<label for="username">${t('sign_in.username')}</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="128" value="${username ?? ''}"${problem ? html` aria-describedby="sign-in-problem"` : ''}>
<label for="password">${t('sign_in.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="${MAX_PASSWORD}">
<div class="actions"><button type="submit">${t('sign_in.submit')}</button></div>
</form>
<p class="hint">${t('sign_in.no_password')}</p>
</div>
<p>${languageSwitch(language, base, '/console/sign-in')}</p>
</main>`
  return consoleDocument({ language, title: t('sign_in.title'), body })
}

export interface LinkView {
  language: Language
  base: string
  token: string
  username: string
  problem?: string
}

/** Where the holder of a sign-in link chooses a password. */
export function linkPage({ language, base, token, username, problem }: LinkView): string {
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const action = `${base}/console/link/${encodeURIComponent(token)}`
  const body = html`<main id="content" class="narrow">
<div class="card">
<h1>${t('link.title')}</h1>
<p>${t('link.intro', { name: username })}</p>
${problem ? html`<p class="problem" role="alert" id="link-problem">${problem}</p>` : ''}
<form method="post" action="${action}">
<input type="text" name="username" autocomplete="username" value="${username}" hidden readonly>
<label for="password">${t('link.password')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" aria-describedby="password-hint${problem ? ' link-problem' : ''}">
<p class="hint" id="password-hint">${t('link.password.hint', { min: MIN_PASSWORD })}</p>
<label for="confirm">${t('link.confirm')}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}">
<div class="actions"><button type="submit">${t('link.submit')}</button></div>
</form>
</div>
<p>${languageSwitch(language, base, `/console/link/${encodeURIComponent(token)}`)}</p>
</main>`
  return consoleDocument({ language, title: t('link.title'), body })
}

/** A link that cannot be used: why, and the way to the sign-in page. */
export function linkRefusedPage(language: Language, base: string, problem: 'unknown' | 'used' | 'expired'): string {
  const t = (key: MessageKey) => message(language, key)
  const body = html`<main id="content" class="narrow"><div class="card">
<h1>${t('link.title')}</h1>
<p class="problem" role="alert">${t(`link.${problem}`)}</p>
<p><a href="${base}/console/sign-in">${t('link.go_sign_in')}</a></p>
</div></main>`
  return consoleDocument({ language, title: t('link.title'), body })
}

/**
 * The console's sections: each its own address (links, the back button), rendered by the application. `nav`: listed
 * in the bar; `shownWith`: listed only for a profile holding one of these flags (the API still decides each request).
 */
export const SECTIONS = {
  dashboard: { path: '/console', title: 'dashboard.title', nav: true },
  library: { path: '/console/library', title: 'library.title', nav: true },
  file: { path: '/console/file', title: 'file.title', nav: false },
  publishing: { path: '/console/publishing', title: 'publishing.title', nav: true },
  people: {
    path: '/console/people',
    title: 'people.title',
    nav: true,
    // Managing people, not seeing them: a Publisher (user.view, group.view) is offered no user management.
    shownWith: ['user.create', 'user.edit', 'user.delete', 'user.manage_access', 'group.create', 'group.edit'],
  },
  webhooks: { path: '/console/webhooks', title: 'webhooks.title', nav: true, shownWith: ['platform.edit'] },
  jobs: { path: '/console/jobs', title: 'jobs.title', nav: true, shownWith: ['platform.edit', 'instance.view'] },
  settings: { path: '/console/settings', title: 'settings.title', nav: true, shownWith: ['platform.edit'] },
} as const satisfies Record<string, { path: string; title: MessageKey; nav: boolean; shownWith?: readonly string[] }>
export type Section = keyof typeof SECTIONS

export interface ShellView {
  language: Language
  base: string
  username: string
  csrf: string
  script: string
  section: Section
  /** The flags of the user's profile: what the application offers (the API still decides). */
  flags: readonly string[]
}

/**
 * The signed-in console: its bar (who, language, sign-out), its sections, and the place the application renders
 * into. Sign-out and sign-out everywhere are plain forms carrying the CSRF token: they work before the script runs.
 */
export function shellPage({ language, base, username, csrf, script, section, flags }: ShellView): string {
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const here = SECTIONS[section]
  const listed = (name: Section) => {
    const entry: { nav: boolean; shownWith?: readonly string[] } = SECTIONS[name]
    return entry.nav && (!entry.shownWith || entry.shownWith.some((flag) => flags.includes(flag)))
  }
  const links = (Object.keys(SECTIONS) as Section[])
    .filter(listed)
    .map(
      (name) =>
        html`<li><a href="${base}${SECTIONS[name].path}"${name === section ? html` aria-current="page"` : ''}>${t(`nav.${name}`)}</a></li>`,
    )
  const body = html`<a class="skip" href="#content">${t('nav.skip')}</a>
<header class="bar">
<p class="brand">${t('app.name')}</p>
<nav aria-label="${t('nav.label')}"><ul>${links}</ul></nav>
<div>
<span id="signed-in-as">${t('account.signed_in_as', { name: username })}</span>
${languageSwitch(language, base, here.path)}
<form method="post" action="${base}/console/sign-out"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="quiet">${t('account.sign_out')}</button></form>
<form method="post" action="${base}/console/sign-out-everywhere"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="quiet" aria-describedby="everywhere-hint">${t('account.sign_out_everywhere')}</button></form>
<span id="everywhere-hint" hidden>${t('account.sign_out_everywhere.hint')}</span>
</div>
</header>
<main id="content"><h1>${t(here.title)}</h1><div id="app" data-section="${section}"><p role="status">${t('state.loading')}</p></div></main>`
  return consoleDocument({ language, title: t(here.title), body, app: { script, csrf, username, base, flags } })
}
