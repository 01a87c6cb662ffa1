import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { type MetadataDefinitionView, metadataValuesXml } from '../metadata/index.js'
import { type FileMedia, type FileView, encodingCode } from './files.types.js'

/** How the answers show `encoding_status`: the word, or the code (the upload answer, as the spec shows). */
export type StatusForm = 'word' | 'code'

/** The URL of a directory: `/files` for the root, `/files/<slug>` otherwise. */
export const directoryUrl = (links: LinkBuilder, slug: string | null): string =>
  slug === null ? links.url('files') : links.url('files', slug)

const status = (file: FileView, form: StatusForm): XmlNode =>
  form === 'code'
    ? xml.num('encoding_status', encodingCode(file.encodingStatus))
    : xml.str('encoding_status', file.encodingStatus)

// finished shows 100 whatever was stored last (API-DECISIONS: Files and encoding).
const progress = (file: FileView): number => (file.encodingStatus === 'finished' ? 100 : file.encodingProgress)

/**
 * `encoding_retry` while a file waits for a retry (after a failed or interrupted run): the
 * attempt it waits for, of how many, and when it runs (an element older clients ignore).
 */
const retry = (file: FileView): XmlNode[] =>
  file.encodingStatus === 'waiting' && file.encodingRetry
    ? [
        xml.el('encoding_retry', undefined, [
          xml.num('attempt', file.encodingRetry.attempt),
          xml.num('max_attempts', file.encodingRetry.maxAttempts),
          xml.date('next_try', file.encodingRetry.nextTry),
        ]),
      ]
    : []

const NO_MEDIA: FileMedia = { thumbnail: '', subtitles: [] }

/** `<subtitles>`: one `subtitle` per subtitle, with its language and the API URL that removes it. */
const subtitlesXml = (media: FileMedia): XmlNode =>
  xml.el(
    'subtitles',
    undefined,
    media.subtitles.map((subtitle) => xml.el('subtitle', { language: subtitle.language, href: subtitle.href })),
  )

/**
 * File info (`GET /file/<slug>`, and the answers of upload and update): every field of the
 * spec, and `encoding_error` when encoding failed. `media` (thumbnail, subtitles) comes
 * from the plugins that own them (`file.describe`); `embed` stays empty (deprecated).
 */
export function fileInfoXml(
  links: LinkBuilder,
  file: FileView,
  definitions: readonly MetadataDefinitionView[],
  form: StatusForm = 'word',
  media: FileMedia = NO_MEDIA,
): XmlNode {
  return xml.el('file', { href: links.url('file', file.slug) }, [
    xml.str('slug', file.slug),
    xml.link('user', links.url('user', file.username), 'owner'),
    xml.str('name', file.name),
    xml.num('size', file.size),
    xml.str('type', file.type),
    status(file, form),
    xml.num('encoding_progress', progress(file)),
    ...retry(file),
    ...(file.encodingError ? [xml.str('encoding_error', file.encodingError)] : []),
    xml.link('directory', directoryUrl(links, file.directorySlug), 'parent'),
    xml.str('thumbnail', media.thumbnail),
    xml.str('embed', ''),
    metadataValuesXml(file.metadata, definitions),
    subtitlesXml(media),
  ])
}

/** A file in a directory answer: href, slug, name, size, type, encoding_status, encoding_progress, thumbnail. */
export function fileSummaryXml(links: LinkBuilder, file: FileView, media: FileMedia = NO_MEDIA): XmlNode {
  return xml.el('file', { href: links.url('file', file.slug) }, [
    xml.str('slug', file.slug),
    xml.str('name', file.name),
    xml.num('size', file.size),
    xml.str('type', file.type),
    status(file, 'word'),
    xml.num('encoding_progress', progress(file)),
    xml.str('thumbnail', media.thumbnail),
  ])
}

/** `GET /file/<slug>/status`: `file` with encoding_status and encoding_progress only. */
export function fileStatusXml(links: LinkBuilder, file: FileView): XmlNode {
  return xml.el('file', { href: links.url('file', file.slug) }, [
    status(file, 'word'),
    xml.num('encoding_progress', progress(file)),
    ...retry(file),
  ])
}
