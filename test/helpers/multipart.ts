import { randomBytes } from 'node:crypto'

/** A part of a multipart body: a field, or a file with its client-side name. */
export type Part = { name: string; value: string } | { name: string; filename: string; data: Buffer; type?: string }

/** A `multipart/form-data` body and its content type, built by hand so tests control every byte. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----mediactl${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    if ('filename' in part) {
      const filename = part.filename.replace(/"/g, '%22')
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${filename}"\r\n` +
            `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        part.data,
        Buffer.from('\r\n'),
      )
    } else {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      )
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Request options for the Digest client carrying a multipart body. */
export function multipartRequest(parts: Part[]): { body: Buffer; headers: Record<string, string> } {
  const { body, contentType } = multipart(parts)
  return { body, headers: { 'content-type': contentType } }
}
