import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import { createS3Client, s3ConfigSchema } from '../../../plugins/storage-s3/index.js'
import { startApp } from '../../helpers/app.js'
import { type LocalS3, TEST_S3, startLocalS3 } from '../../helpers/s3-server.js'
import { tusSuite } from './tus.suite.js'

/**
 * Resumable uploads (tus) with storage-s3: multipart uploads under `tus/` in the bucket,
 * copied by the service to their storage key. Against MEDIACTL_TEST_S3_ENDPOINT when set,
 * else s3rver with the multipart calls it lacks (ListParts, AbortMultipartUpload).
 */

// The SDK's notice that its 2027 releases need Node.js 22 is not news to the test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'

const PART_SIZE = 5 * 1024 * 1024
const PLUGINS = ['root', 'platforms', 'identity', 'storage-s3', 'metadata', 'files']

let server: LocalS3 | undefined
let settings: Record<string, unknown>

tusSuite('storage-s3', {
  async start(options) {
    if (TEST_S3) {
      settings = { ...TEST_S3, prefix: `mediactl-test-${Date.now().toString(36)}/` }
    } else {
      server = await startLocalS3('mediactl-tus', { multipart: true })
      settings = { ...server.config }
    }
    settings = { ...settings, part_size: PART_SIZE }
    return startApp({ ...options, config: { ...options.config, plugins: PLUGINS, 'storage-s3': settings } })
  },
  async leftovers() {
    const config = s3ConfigSchema.parse(settings)
    const client = createS3Client(config)
    try {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: config.bucket, Prefix: `${config.prefix}tus/` }),
      )
      return (page.Contents ?? []).map((object) => object.Key ?? '').sort()
    } finally {
      client.destroy()
    }
  },
  // @tus/s3-store keeps whole parts of a broken request.
  partSize: PART_SIZE,
  async stop() {
    await server?.stop()
  },
})
