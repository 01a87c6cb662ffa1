import { definePlugin } from '../../src/kernel/index.js'
import { s3ConfigSchema } from './config.js'
import { createS3Client, s3ClientConfig } from './s3-client.js'
import { S3ResumableUploads } from './s3-resumable-uploads.js'
import { S3Storage } from './s3-storage.js'

export { type S3Config, s3ConfigSchema } from './config.js'
export { createS3Client, s3ClientConfig } from './s3-client.js'
export { S3ResumableUploads, type S3ResumableUploadsOptions } from './s3-resumable-uploads.js'
export { S3Storage, type S3StorageOptions } from './s3-storage.js'

/**
 * File bytes in a bucket of any S3-compatible service (Amazon S3, MinIO, Ceph, Garage,
 * Cloudflare R2, ...), so that several serving processes and workers share them. The
 * bucket is not contacted at boot: a wrong setting shows on the first read or write. Also
 * keeps tus uploads in progress, as multipart uploads under `<prefix>tus/`.
 */
export default definePlugin({
  name: 'storage-s3',
  provides: ['storage', 'resumableUploads'],
  config: s3ConfigSchema,
  register(ctx) {
    const config = ctx.config
    const client = createS3Client(config)
    const signer = !config.signed_urls
      ? null
      : config.public_endpoint
        ? createS3Client(config, config.public_endpoint)
        : client
    ctx.provide(
      'storage',
      new S3Storage({
        client,
        bucket: config.bucket,
        prefix: config.prefix,
        partSize: config.part_size,
        queueSize: config.queue_size,
        signer,
        log: ctx.log,
      }),
    )
    const resumable = new S3ResumableUploads({
      clientConfig: s3ClientConfig(config),
      bucket: config.bucket,
      prefix: config.prefix,
      partSize: config.part_size,
    })
    ctx.provide('resumableUploads', resumable)
    ctx.onStop(() => {
      resumable.close()
      client.destroy()
      if (signer && signer !== client) signer.destroy()
    })
  },
})
