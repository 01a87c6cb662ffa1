import { definePlugin } from '../../src/kernel/index.js'
import { PocketsphinxTranscriber } from './pocketsphinx-transcriber.js'
import { pocketsphinxConfigSchema } from './pocketsphinx.config.js'

export { PocketsphinxTranscriber } from './pocketsphinx-transcriber.js'
export { segmentsOf } from './asr-events.js'
export { pocketsphinxConfigSchema, type PocketsphinxConfig } from './pocketsphinx.config.js'

/**
 * Speech to text with no network: Debian's ffmpeg `asr` filter (pocketsphinx) and the English model of
 * `pocketsphinx-en-us` (issue 34). Provides the `transcriber` port.
 */
export default definePlugin({
  name: 'transcriber-pocketsphinx',
  provides: ['transcriber'],
  config: pocketsphinxConfigSchema,
  register(ctx) {
    ctx.provide('transcriber', new PocketsphinxTranscriber(ctx.config))
  },
})
