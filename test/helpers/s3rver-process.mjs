// Runs s3rver, a small S3-compatible server, for the storage-s3 tests: in its own process
// so the suite's memory measurements see the client only. Arguments: <directory> <bucket>
// [multipart] (also serve ListParts and AbortMultipartUpload, see s3rver-multipart.mjs).
// Sends { port } to the parent once listening; exits when the parent goes away.
import S3rver from 's3rver'
import { addMultipartCalls } from './s3rver-multipart.mjs'

const [directory, bucket, extra] = process.argv.slice(2)
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
})
const { port } = await server.run()
if (extra === 'multipart') addMultipartCalls(server)
process.send({ port })
process.on('disconnect', () => {
  server.close().finally(() => process.exit(0))
})
