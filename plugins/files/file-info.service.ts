import { type Emit, type HttpContext, type XmlNode, serviceKey } from '../../src/kernel/index.js'
import type { MetadataDefinitions } from '../metadata/index.js'
import { describeFiles, wantsToken } from './file-media.service.js'
import { type StatusForm, fileInfoXml } from './file.xml.js'
import type { FileView } from './files.types.js'

/** The info answer of a file: the one of `GET /file/<slug>`, also answered by the routes that change a file. */
export type FileInfo = (c: HttpContext, file: FileView, status?: StatusForm) => Promise<XmlNode>

/** The file store's file info, for the plugins whose routes answer it (subtitles, the studio). */
export const FILE_INFO = serviceKey<FileInfo>('files.info')

/**
 * File info, with the metadata definitions of its platform for the value elements (kept per
 * process by the metadata plugin) and what other plugins show (`file.describe`).
 */
export function fileInfoOf(emit: Emit, definitions: MetadataDefinitions): FileInfo {
  return async (c, file, status = 'word') => {
    const media = await describeFiles(emit, [file], wantsToken(c))
    return fileInfoXml(c.links, file, await definitions.ofPlatform(file.platformId), status, media.get(file.id))
  }
}
