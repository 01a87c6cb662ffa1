import { type FieldReader, type HttpContext, type LogoPlacement, type Router, reply } from '../../src/kernel/index.js'
import { type FileView, fileQueries, nameField, ownFile, requireFileFlag } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'

const PERMISSION = 'the owner only (files are private); anyone else gets 404; profile file.create'

/** A percentage as sent: digits with an optional decimal part, no sign, no `%`. */
const PERCENT = /^(\d+(\.\d*)?|\.\d+)$/
/** Sums of percentages are compared with this slack (0.1 + 0.2 is not 0.3 in binary). */
const SLACK = 1e-9

/** A percentage field from 0 to 100 (`positive`: above 0), or undefined with the failure recorded. */
function percent(fields: FieldReader, field: string, positive: boolean): number | undefined {
  const value = fields.string(field, { required: true })
  if (value == null) return undefined
  const number = PERCENT.test(value) ? Number(value) : NaN
  if (!Number.isFinite(number) || number > 100 || (positive ? number <= 0 : number < 0)) {
    fields.fail(
      field,
      positive
        ? 'must be a percentage above 0, up to 100 (a number without %)'
        : 'must be a percentage from 0 to 100 (a number without %)',
    )
    return undefined
  }
  return number
}

/** `logo_left`, `logo_top`, `logo_width`, `logo_height`; the logo must lie inside the frame. */
function readPlacement(fields: FieldReader): LogoPlacement | undefined {
  const width = percent(fields, 'logo_width', true)
  const height = percent(fields, 'logo_height', true)
  const top = percent(fields, 'logo_top', false)
  const left = percent(fields, 'logo_left', false)
  if (left !== undefined && width !== undefined && left + width > 100 + SLACK) {
    fields.fail('logo_width', 'logo_left + logo_width must be at most 100 (the logo must fit in the frame)')
    fields.fail('logo_left', 'logo_left + logo_width must be at most 100 (the logo must fit in the frame)')
  }
  if (top !== undefined && height !== undefined && top + height > 100 + SLACK) {
    fields.fail('logo_height', 'logo_top + logo_height must be at most 100 (the logo must fit in the frame)')
    fields.fail('logo_top', 'logo_top + logo_height must be at most 100 (the logo must fit in the frame)')
  }
  if (left === undefined || top === undefined || width === undefined || height === undefined) return undefined
  return { left, top, width, height }
}

/** `logo`: the slug of an image file of the caller, or undefined with the failure recorded. */
async function readLogo(c: HttpContext, fields: FieldReader): Promise<FileView | undefined> {
  const slug = fields.string('logo', { required: true, max: 255 })
  if (slug == null) return undefined
  const logo = await fileQueries.fileBySlug(c.reader, slug)
  // Another user's file is not named as such: files are private.
  if (!logo || logo.userId !== c.principal.id) fields.fail('logo', `you have no file "${slug}"`)
  else if (logo.type !== 'image') fields.fail('logo', `"${slug}" is not an image file`)
  else return logo
  return undefined
}

/**
 * `POST /file/<slug>/studio/insertlogo`: a new file, in the original's directory, holding
 * the video with a logo laid over it (API-DECISIONS: insertlogo). The answer (202) shows the
 * new file `pending`; the logo goes in in the background (`deps.queueLogoInsertion`), then the new file is
 * encoded like any upload. The original is never modified.
 */
export function studioRoutes(r: Router, deps: EncodingDeps): void {
  const { derived, info } = deps
  r.post(
    '/file/:file/studio/insertlogo',
    async (c) => {
      const file = await ownFile(c)
      requireFileFlag(c, 'file.create')
      const fields = c.fields(await c.form(), 'create')
      if (file.type !== 'video' || file.encodingStatus !== 'finished') {
        fields.fail('file', 'must be a video that finished encoding')
      }
      const logo = await readLogo(c, fields)
      const placement = readPlacement(fields)
      const name = nameField(fields)
      fields.done()
      // The new file and the job that makes its bytes commit together (or not at all).
      const id = await derived.create(
        c.em,
        { owner: c.principal, directoryId: file.directoryId, name: name!, type: 'video', mimeType: 'video/mp4' },
        async (tx, created) => {
          await deps.queueLogoInsertion(
            tx,
            { fileId: created.id, sourceId: file.id, logoId: logo!.id, placement: placement! },
            created,
          )
        },
      )
      return reply.xml(202, await info(c, (await fileQueries.fileById(c.reader, id))!))
    },
    { permission: PERMISSION },
  )
}
