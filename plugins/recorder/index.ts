import { definePlugin } from '../../src/kernel/index.js'
import { FILES_SETTINGS, UPLOAD_LINKS } from '../files/index.js'
import '../identity/index.js'
import init from './migrations/20261210-recorder-init.js'
import { RecorderCodeEntity } from './recorder-code.entity.js'
import { deleteUserCodes, purgeRecorderCodes } from './recorder-code.service.js'
import { recorderConfigSchema } from './recorder.config.js'
import type { RecorderDeps } from './recorder.deps.js'
import { recorderPageRoutes } from './recorder-page.routes.js'
import { widgetRoutes } from './widget.routes.js'

export { type RecorderCode, RecorderCodeEntity } from './recorder-code.entity.js'
export { type RecorderCodeView, peekRecorderCode } from './recorder-code.queries.js'
export {
  type IssuedCode,
  type RecorderCodeCheck,
  type RecorderCodeProblem,
  consumeRecorderCode,
  issueRecorderCode,
  purgeRecorderCodes,
} from './recorder-code.service.js'
export { RECORDER_FLAGS } from './widget.routes.js'
export { RECORDER_GONE, recorderScript } from './recorder-page.routes.js'
export { RECORDER_HEIGHT, RECORDER_WIDTH, recorderSnippet } from './widget.xml.js'

/**
 * The recorder extension widget (`GET /extension/widget/recorder`): each request delivers the
 * HTML of an iframe of the recorder page (`/recorder/<code>`), whose code is unguessable,
 * bound to the caller and usable once (`consumeRecorderCode`), until `recorder.code_ttl`.
 * `POST /extension/widget/recorder/<code>/upload_links` spends a code for upload links into
 * its user's root directory. `GET /recorder/<code>` is the page in that iframe: it records
 * with the browser's camera and microphone and sends the recording through those links.
 */
export default definePlugin({
  name: 'recorder',
  dependsOn: ['identity', 'files'],
  config: recorderConfigSchema,
  entities: [RecorderCodeEntity],
  migrations: [init],
  register(ctx) {
    // The file store makes the upload links, with its own settings (upload base URL, link lifetime).
    const deps: RecorderDeps = {
      config: ctx.config,
      filesConfig: ctx.use(FILES_SETTINGS),
      uploadLinks: ctx.use(UPLOAD_LINKS),
      credentials: ctx.port('credentials'),
    }
    ctx.routes((r) => widgetRoutes(r, deps))
    ctx.routes((r) => recorderPageRoutes(r, deps))
    // The foreign key cascades too; deleting explicitly keeps the outcome independent of it.
    ctx.on('user.deleting', ({ em, user }) => deleteUserCodes(em, [user.id]))
    ctx.on('platform.users-deleting', ({ em, userIds }) => deleteUserCodes(em, userIds))
    // Run by `mediactl purge`, and in serving processes on `files.purge_schedule`.
    ctx.on('maintenance.purge', async ({ now, report }) => {
      report['expired recorder codes'] = await purgeRecorderCodes(ctx.em(), now)
    })
  },
})
