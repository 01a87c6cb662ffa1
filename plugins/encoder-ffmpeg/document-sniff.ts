import { open } from 'node:fs/promises'

/** Bytes read from the start of a file: enough for the signatures and the first ZIP entry's name. */
const HEAD = 4096

/** Legacy Office files (doc, xls, ppt): the OLE2 compound file signature. */
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
const ZIP = Buffer.from('PK\x03\x04', 'latin1')

/** Names that, in the first entries of a ZIP file, make it an office document or an ebook. */
const ZIP_DOCUMENT_MARKS = [
  '[Content_Types].xml',
  'mimetypeapplication/vnd.oasis.opendocument',
  'mimetypeapplication/epub',
]

/**
 * True when the file starts like a document: PDF, RTF, legacy Office, Office Open XML,
 * OpenDocument or EPUB. Only the first bytes are read; a name never decides.
 */
export async function isDocument(path: string): Promise<boolean> {
  let head: Buffer
  try {
    const file = await open(path, 'r')
    try {
      const buffer = Buffer.alloc(HEAD)
      const { bytesRead } = await file.read(buffer, 0, HEAD, 0)
      head = buffer.subarray(0, bytesRead)
    } finally {
      await file.close()
    }
  } catch {
    return false
  }
  const text = head.toString('latin1')
  if (text.startsWith('%PDF-') || text.startsWith('{\\rtf')) return true
  if (head.subarray(0, OLE2.length).equals(OLE2)) return true
  return head.subarray(0, ZIP.length).equals(ZIP) && ZIP_DOCUMENT_MARKS.some((mark) => text.includes(mark))
}
