import { definePlugin } from '../../src/kernel/index.js'
import { CommandTranscriber } from './command-transcriber.js'
import { commandConfigSchema } from './command.config.js'

export { CommandTranscriber } from './command-transcriber.js'
export { commandConfigSchema, type CommandConfig } from './command.config.js'
export { segmentsOfJson, segmentsOfVtt } from './transcript-formats.js'

/**
 * Speech to text with an engine the operator installs (whisper.cpp, faster-whisper, vosk...), run as a command
 * (issue 34). Provides the `transcriber` port.
 */
export default definePlugin({
  name: 'transcriber-command',
  provides: ['transcriber'],
  config: commandConfigSchema,
  register(ctx) {
    ctx.provide('transcriber', new CommandTranscriber(ctx.config))
  },
})
