import {
  type CredentialsPort,
  type HttpContext,
  HttpError,
  type Reply,
  type Router,
  forbidden,
  notFound,
  reply,
  requireFlag,
} from '../../src/kernel/index.js'
import type { UploadLinks } from '../files/index.js'
import type { RecorderConfig } from './recorder.config.js'
import { type RecorderCodeProblem, consumeRecorderCode, issueRecorderCode } from './recorder-code.service.js'
import { recorderWidgetXml, uploadLinksXml } from './widget.xml.js'
import type { RecorderDeps } from './recorder.deps.js'

/** What delivering a recorder takes: recording it, and storing the recording as a file. */
export const RECORDER_FLAGS = ['video_recorder.use', 'file.create'] as const

// Every answer carries or spends a single-use credential: never reuse one from a cache.
const NO_STORE = { 'Cache-Control': 'no-store' }
const ASK_AGAIN = 'ask for a new widget (GET /extension/widget/recorder)'

const REFUSALS: Record<RecorderCodeProblem, () => HttpError> = {
  unknown: () => notFound(`No such recorder code: ${ASK_AGAIN}.`),
  used: () => new HttpError(412, `This recorder code was already used, and a code is usable once: ${ASK_AGAIN}.`),
  expired: () => new HttpError(412, `This recorder code expired: ${ASK_AGAIN}.`),
}

/** A new recorder code for the caller, in the widget's code. */
async function widget(c: HttpContext, config: RecorderConfig): Promise<Reply> {
  for (const flag of RECORDER_FLAGS) requireFlag(c.principal, flag)
  const { code } = await issueRecorderCode(c.em, c.principal.id, config.code_ttl)
  return reply.xml(200, recorderWidgetXml(c.links, code), NO_STORE)
}

/**
 * Spends a recorder code for upload links into its user's root directory. The code is spent
 * first, whatever follows: its user must still exist, be active and hold the recorder flags.
 */
async function uploadLinks(c: HttpContext, links: UploadLinks, credentials: CredentialsPort): Promise<Reply> {
  const code = c.param('code')
  const check = await consumeRecorderCode(c.em, code)
  if (!check.ok) throw REFUSALS[check.problem]()
  const user = await credentials.findByUsername(check.username)
  if (!user || !user.isActive) throw new HttpError(401, 'The user of this recorder code cannot upload any more.')
  for (const flag of RECORDER_FLAGS) {
    if (!c.authz.hasProfileFlag(user, flag)) {
      throw forbidden(`The user of this recorder code no longer holds the "${flag}" permission of their profile.`)
    }
  }
  const token = links.token(user.username, null)
  const href = c.links.url('extension', 'widget', 'recorder', code, 'upload_links')
  return reply.xml(200, uploadLinksXml(href, links.base, token), NO_STORE)
}

/**
 * `GET /extension/widget/recorder` (the spec's extension widget) and
 * `POST /extension/widget/recorder/<code>/upload_links` (spends a code).
 */
export function widgetRoutes(r: Router, deps: RecorderDeps): void {
  const { config, uploadLinks: links, credentials } = deps
  r.get('/extension/widget/recorder', (c) => widget(c, config), {
    permission: 'profile video_recorder.use and file.create',
  })
  r.post('/extension/widget/recorder/:code/upload_links', (c) => uploadLinks(c, links, credentials), {
    public: true,
    permission: 'public: the recorder code itself is the credential (single use)',
  })
}
