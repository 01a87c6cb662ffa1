import { type HttpContext, type Router, invalid, notFound, reply, tooLarge } from '../../src/kernel/index.js'
import { isLanguageCode } from '../../src/shared/iso-codes.js'
import { CACHE, MEDIA_PERMISSION, MEDIA_TOKEN_PURPOSE, mediaFile, serveStored } from '../encoding/index.js'
import { ownFile, requireFileFlag } from '../files/index.js'
import { type Subtitle, SubtitleEntity } from './subtitle.entity.js'
import { parseSubtitle } from './subtitle.format.js'
import { addSubtitle, deleteSubtitle } from './subtitle.service.js'
import type { SubtitlesDeps } from './subtitles.deps.js'

/** Largest subtitle file accepted: a feature film's subtitles are a few hundred KB. */
export const SUBTITLE_MAX_BYTES = 5 * 1024 * 1024

const OWNER = 'the owner of the file only (files are private); anyone else gets 404'

/** Reads the multipart part `subtitle` whole (it is small and bounded), and the fields. */
async function readSubtitleForm(c: HttpContext): Promise<{ bytes?: Buffer; language: unknown }> {
  let bytes: Buffer | undefined
  const form = await c.form(
    async (part) => {
      if (part.field !== 'subtitle' || bytes) {
        part.stream.resume()
        return
      }
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of part.stream) {
        size += (chunk as Buffer).length
        if (size > SUBTITLE_MAX_BYTES) throw tooLarge(`A subtitle file may hold at most ${SUBTITLE_MAX_BYTES} bytes.`)
        chunks.push(chunk as Buffer)
      }
      bytes = Buffer.concat(chunks)
    },
    { maxFiles: 2 },
  )
  return { bytes, language: form.language }
}

/** The subtitle named by `:subtitle` of a file, or 404. */
async function subtitleOf(c: HttpContext, fileId: number): Promise<Subtitle> {
  const id = c.param('subtitle')
  const subtitle = await c.em.findOne(SubtitleEntity, { file: fileId, publicId: id })
  if (!subtitle) throw notFound(`No subtitle "${id}".`)
  return subtitle
}

/** Subtitles of a file: add (SRT or WebVTT, checked by parsing), fetch as WebVTT, remove. */
export function subtitleRoutes(r: Router, deps: SubtitlesDeps): void {
  const { storage, info } = deps
  r.get(
    '/file/:file/subtitles/:subtitle',
    async (c) => {
      const subtitle = await subtitleOf(c, (await mediaFile(c)).id)
      return serveStored(storage, c, subtitle.vttKey, 'text/vtt; charset=utf-8', CACHE.media)
    },
    { permission: MEDIA_PERMISSION, produces: 'text/vtt', tokenPurpose: MEDIA_TOKEN_PURPOSE },
  )

  r.post(
    '/file/:file/subtitles',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.edit')
      const { bytes, language } = await readSubtitleForm(c)
      const errors: Record<string, string> = {}
      if (typeof language !== 'string' || !language.trim())
        errors.language = 'is required: an ISO 639-1 code (fr, en, ...)'
      else if (!isLanguageCode(language.trim())) errors.language = 'must be an ISO 639-1 code, lowercase (fr, en, ...)'
      const parsed = bytes ? parseSubtitle(bytes) : undefined
      if (!bytes) errors.subtitle = 'send the subtitle file as the multipart file part "subtitle"'
      else if (parsed && !parsed.ok) errors.subtitle = `is neither valid SRT nor valid WebVTT: ${parsed.error}`
      if (Object.keys(errors).length || !parsed?.ok) throw invalid(errors)
      await addSubtitle(storage, c.em, file, {
        language: (language as string).trim(),
        format: parsed.format,
        bytes: bytes!,
        cues: parsed.cues,
      })
      return reply.xml(201, await info(c, file))
    },
    { permission: `${OWNER}; profile file.edit` },
  )

  r.delete(
    '/file/:file/subtitles/:subtitle',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.edit')
      await deleteSubtitle(storage, c.log, c.em, await subtitleOf(c, file.id))
      return reply.noContent()
    },
    { permission: `${OWNER}; profile file.edit` },
  )
}
