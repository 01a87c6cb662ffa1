import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TranscriberPort } from '../../src/kernel/index.js'
import { HAS_FLITE, LECTURE, type Speech, silence, speak, wordErrorRate } from '../helpers/speech.js'

/**
 * The TranscriberPort contract (src/kernel/ports/transcriber.port.ts) as tests, every adapter running the same suite
 * on real speech: ten lecture sentences spoken by flite with pauses between them, at test time.
 */
export function transcriberConformance(
  name: string,
  make: () => TranscriberPort,
  options: { maxWordErrorRate: number },
) {
  describe.skipIf(!HAS_FLITE)(`transcriber conformance: ${name}`, { timeout: 120_000 }, () => {
    let transcriber: TranscriberPort
    let lecture: Speech
    let quiet: Speech

    beforeAll(async () => {
      transcriber = make()
      ;[lecture, quiet] = await Promise.all([speak(LECTURE, { pause: 1.2 }), silence(4)])
    }, 60_000)

    afterAll(() => {
      lecture?.remove()
      quiet?.remove()
    })

    it('says it is ready, with its engine and English among its languages', async () => {
      const status = await transcriber.status()
      expect(status).toMatchObject({ ready: true, engine: expect.stringMatching(/\S/) })
      expect(status.ready && status.languages).toContain('en')
    })

    it('hears what was said, in segments that follow the speech in time', async () => {
      const transcript = await transcriber.transcribe(lecture.wav, { language: 'en' })
      expect(transcript.language).toBe('en')
      expect(transcript.engine).toBe((await transcriber.status()).engine)
      const heard = transcript.segments.map((segment) => segment.text).join(' ')
      const said = LECTURE.join(' ')
      expect(wordErrorRate(said, heard), `heard: ${heard}`).toBeLessThanOrEqual(options.maxWordErrorRate)
      const total = lecture.said.at(-1)!.end + 1.2
      let previousEnd = 0
      for (const segment of transcript.segments) {
        expect(segment.start).toBeGreaterThanOrEqual(previousEnd)
        expect(segment.end).toBeGreaterThan(segment.start)
        expect(segment.end).toBeLessThanOrEqual(total + 0.5)
        // Each segment lies over speech: it overlaps a sentence as said.
        expect(
          lecture.said.some((s) => segment.start < s.end + 0.5 && segment.end > s.start - 0.5),
          JSON.stringify(segment),
        ).toBe(true)
        previousEnd = segment.end
      }
      // One segment per utterance, the pauses between them kept: about one per sentence.
      expect(transcript.segments.length).toBeGreaterThanOrEqual(LECTURE.length - 3)
      expect(transcript.segments.length).toBeLessThanOrEqual(LECTURE.length + 3)
    })

    it('answers silence with no segment, not an error', async () => {
      expect((await transcriber.transcribe(quiet.wav, { language: 'en' })).segments).toEqual([])
    })

    it('refuses a language it does not speak, a file that is no audio, and stops when aborted', async () => {
      await expect(transcriber.transcribe(lecture.wav, { language: 'tlh' })).rejects.toThrow(/tlh/)
      const notAudio = `${lecture.wav}.txt`
      writeFileSync(notAudio, 'not a sound at all')
      await expect(transcriber.transcribe(notAudio, { language: 'en' })).rejects.toThrow(/\S/)
      const controller = new AbortController()
      const working = transcriber.transcribe(lecture.wav, { language: 'en', signal: controller.signal })
      controller.abort()
      await expect(working).rejects.toThrow(/abort/i)
    })
  })
}
