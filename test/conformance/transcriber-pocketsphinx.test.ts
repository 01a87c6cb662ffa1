import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  PocketsphinxTranscriber,
  pocketsphinxConfigSchema,
  segmentsOf,
} from '../../plugins/transcriber-pocketsphinx/index.js'
import { transcriberConformance } from './transcriber.conformance.js'

/** Debian's pocketsphinx-en-us: the suite runs where the model is installed. */
const HAS_MODEL = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')

if (HAS_MODEL) {
  // Measured at 12 to 15% on these sentences; a broken engine or cue timing is far above.
  transcriberConformance(
    'transcriber-pocketsphinx',
    () => new PocketsphinxTranscriber(pocketsphinxConfigSchema.parse({})),
    {
      maxWordErrorRate: 0.3,
    },
  )
}

describe('transcriber-pocketsphinx', () => {
  it('says why it is not ready when the model is missing, naming the package', async () => {
    const config = pocketsphinxConfigSchema.parse({ lm: '/nowhere/en-us.lm.bin' })
    expect(await new PocketsphinxTranscriber(config).status()).toEqual({
      ready: false,
      engine: 'pocketsphinx en',
      reason: 'no model at /nowhere/en-us.lm.bin (transcriber-pocketsphinx.lm): apt-get install pocketsphinx-en-us',
    })
  })

  it('says why it is not ready when ffmpeg has no asr filter', async () => {
    const transcriber = new PocketsphinxTranscriber(pocketsphinxConfigSchema.parse({}), { FFMPEG_PATH: '/bin/false' })
    const status = await transcriber.status()
    if (HAS_MODEL) expect(status).toMatchObject({ ready: false, reason: expect.stringMatching(/has no "asr" filter/) })
  })

  it('refuses a model path the filter graph would read as syntax', () => {
    expect(pocketsphinxConfigSchema.safeParse({ hmm: '/a:b,asr=x' }).success).toBe(false)
    expect(pocketsphinxConfigSchema.safeParse({ dict: 'relative/path' }).success).toBe(false)
  })

  it('puts the words of an utterance over the speech before the pause that ended it', () => {
    const printed = [
      'frame:1 pts:0 pts_time:0.4',
      'lavfi.silence_start=0',
      'frame:2 pts:1 pts_time:1.2',
      'lavfi.silence_end=1.1',
      'lavfi.silence_duration=1.1',
      'frame:3 pts:2 pts_time:3.6',
      'lavfi.silence_start=3.2',
      'frame:4 pts:3 pts_time:4.1',
      'lavfi.asr.text=welcome to the course',
      'frame:5 pts:4 pts_time:4.5',
      'lavfi.silence_end=4.4',
      'frame:6 pts:5 pts_time:6.0',
      'lavfi.silence_start=5.9',
      'frame:7 pts:6 pts_time:6.1',
      'lavfi.silence_end=6.2',
      'frame:8 pts:7 pts_time:7.5',
      'lavfi.silence_start=7.4',
      'frame:9 pts:8 pts_time:8.0',
      'lavfi.asr.text=two parts one utterance',
      'frame:10 pts:9 pts_time:9.0',
      'lavfi.asr.text=   ',
    ].join('\n')
    expect(segmentsOf(printed)).toEqual([
      { start: 1.1, end: 3.2, text: 'welcome to the course' },
      { start: 4.4, end: 7.4, text: 'two parts one utterance' },
    ])
  })
})
