// The multipart calls s3rver lacks and @tus/s3-store needs: ListParts and
// AbortMultipartUpload (s3rver answers them 405). Served from s3rver's own files (parts are
// `<bucket>/._S3rver_uploads/<uploadId>/<partNumber>`, with a `.md5` beside each), so the
// answers are those of the parts really uploaded. Opt-in (see s3-server.ts): other tests
// rely on s3rver refusing AbortMultipartUpload.
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/'

const escape = (value) =>
  String(value).replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c],
  )

function send(res, status, body) {
  res.writeHead(status, body ? { 'Content-Type': 'application/xml' } : {})
  res.end(body)
}

function noSuchUpload(res, uploadId) {
  send(
    res,
    404,
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${escape(uploadId)}</UploadId></Error>`,
  )
}

/** The folder of an upload's parts, or null when the upload is unknown (completed, aborted, never made). */
async function uploadDir(store, bucket, uploadId) {
  if (!/^[0-9a-f]+$/.test(uploadId)) return null
  const dir = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId)
  return (await stat(dir).catch(() => null))?.isDirectory() ? dir : null
}

async function listParts(store, res, bucket, key, uploadId) {
  const dir = await uploadDir(store, bucket, uploadId)
  if (!dir) return noSuchUpload(res, uploadId)
  const numbers = (await readdir(dir))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b)
  const parts = []
  for (const number of numbers) {
    const info = await stat(join(dir, String(number)))
    const md5 = (await readFile(join(dir, `${number}.md5`), 'utf8').catch(() => '')).trim()
    parts.push(
      `<Part><PartNumber>${number}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified>` +
        `<ETag>"${md5}"</ETag><Size>${info.size}</Size></Part>`,
    )
  }
  send(
    res,
    200,
    `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="${XMLNS}"><Bucket>${escape(bucket)}</Bucket>` +
      `<Key>${escape(key)}</Key><UploadId>${escape(uploadId)}</UploadId><MaxParts>10000</MaxParts>` +
      `<IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`,
  )
}

async function abort(store, res, bucket, uploadId) {
  const dir = await uploadDir(store, bucket, uploadId)
  if (!dir) return noSuchUpload(res, uploadId)
  await rm(dir, { recursive: true, force: true })
  send(res, 204)
}

/** Serves ListParts and AbortMultipartUpload in front of a running s3rver (path-style URLs). */
export function addMultipartCalls(server) {
  const httpServer = server.httpServer
  const [s3rver] = httpServer.listeners('request')
  httpServer.removeAllListeners('request')
  httpServer.on('request', (req, res) => {
    const url = new URL(req.url, 'http://s3rver')
    const uploadId = url.searchParams.get('uploadId')
    const [bucket, ...key] = url.pathname.slice(1).split('/').map(decodeURIComponent)
    const isPartList = req.method === 'GET' && uploadId && key.length
    const isAbort = req.method === 'DELETE' && uploadId && key.length
    if (!isPartList && !isAbort) return s3rver(req, res)
    // Bodiless calls: drain whatever came, then answer from the files.
    req.resume()
    const answer = isPartList
      ? listParts(server.store, res, bucket, key.join('/'), uploadId)
      : abort(server.store, res, bucket, uploadId)
    answer.catch((error) =>
      send(res, 500, `<Error><Code>InternalError</Code><Message>${escape(error)}</Message></Error>`),
    )
  })
}
