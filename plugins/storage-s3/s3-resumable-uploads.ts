import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3ClientConfig,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3'
import { S3Store } from '@tus/s3-store'
import { type KvStore, Upload } from '@tus/server'
import type { Readable } from 'node:stream'
import {
  RESUMABLE_UPLOAD_ID,
  type ResumableUploadsPort,
  checkResumableUploadId,
  checkStorageKey,
  finishedUpload,
  resumableUploadError,
} from '../../src/kernel/index.js'
import { isNotFound, serviceError } from './s3-errors.js'

const MiB = 1024 * 1024
const GiB = 1024 * MiB

/** Largest object one CopyObject copies; above, a multipart copy. */
const MAX_COPY = 5 * GiB
/** S3's most parts per multipart upload. */
const MAX_PARTS = 10_000
/** Parts of a multipart copy: large, the service copies them internally. */
const COPY_PART = 512 * MiB
/** Parts of a multipart copy in flight at once. */
const COPY_QUEUE = 4

/** The tus extensions offered: no deferred length (quotas need the size first), no creation-based expiry. */
const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination']

/** The object keys of one tus upload, under the tus prefix: the bytes, their info, the trailing short part. */
const SUFFIXES = ['', '.info', '.part']

/**
 * No cache of upload infos: with several serving processes, a cached info could outlive an
 * upload another process removed (and S3Store takes a vanished multipart upload for a
 * finished one). Costs one small GET per request.
 */
const NO_CACHE: KvStore<never> = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
}

/** A tus store error (a plain `{ status_code, body }`) or anything else, as an Error naming the upload. */
/** The service's error names of a multipart upload that no longer exists (completed or aborted). */
const isGoneUpload = (error: unknown): boolean =>
  isNotFound(error) || ['NoSuchUpload', 'NoSuchKey'].includes((error as Error | undefined)?.name ?? '')

/**
 * S3Store with its objects under a key prefix (`<prefix>tus/<id>`, `.info`, `.part`): tus ids
 * stay bare, the store's own keys are the prefixed ones. Every public member translates,
 * and S3Store's internals only call each other, so they all see the prefixed key.
 */
class PrefixedS3Store extends S3Store {
  constructor(
    options: ConstructorParameters<typeof S3Store>[0],
    /** Prepended to every upload id to make its object key. */
    readonly keyPrefix: string,
  ) {
    super(options)
    this.extensions = [...TUS_EXTENSIONS]
  }

  /** The object key of an upload id. */
  objectKey(id: string): string {
    checkResumableUploadId(id)
    return this.keyPrefix + id
  }

  /** The S3 client (S3Store's own, made from the same settings as the storage's). */
  get s3(): S3Store['client'] {
    return this.client
  }

  override async create(upload: Upload): Promise<Upload> {
    const inner = new Upload({ ...upload, id: this.objectKey(upload.id) })
    await super.create(inner)
    upload.creation_date = inner.creation_date
    upload.storage = inner.storage
    return upload
  }

  override write(src: Readable, id: string, offset: number): Promise<number> {
    return super.write(src, this.objectKey(id), offset)
  }

  override async getUpload(id: string): Promise<Upload> {
    const upload = await super.getUpload(this.objectKey(id))
    upload.id = id
    return upload
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return super.declareUploadLength(this.objectKey(id), length)
  }

  override read(id: string): Promise<Readable> {
    return super.read(this.objectKey(id))
  }

  /**
   * Removes the upload whatever its state. S3Store's own `remove` gives up on a finished
   * upload (its multipart upload is gone) and leaves the objects behind.
   */
  override async remove(id: string): Promise<void> {
    const key = this.objectKey(id)
    let uploadId: string | undefined
    try {
      uploadId = (await this.getMetadata(key))['upload-id']
    } catch (error) {
      if (!isGoneUpload(error)) throw error
    }
    if (uploadId) {
      try {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }))
      } catch (error) {
        if (!isGoneUpload(error)) throw error
      }
    }
    // One by one: DeleteObjects needs a checksum header some services refuse; S3 answers 204 for an absent key.
    await Promise.all(
      SUFFIXES.map((suffix) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key + suffix }))),
    )
  }

  /** When the multipart upload of `id` last received a part; null without parts or once completed. */
  async lastPart(id: string): Promise<Date | null> {
    try {
      const parts = await this.retrieveParts(this.objectKey(id))
      const times = parts.map((part) => part.LastModified?.getTime() ?? 0)
      return times.length ? new Date(Math.max(...times)) : null
    } catch (error) {
      if (isGoneUpload(error)) return null
      throw error
    }
  }
}

export interface S3ResumableUploadsOptions {
  /** Settings of the S3 client (those of the storage). */
  clientConfig: S3ClientConfig
  bucket: string
  /** The storage's key prefix (empty, or segments ending with `/`): tus objects go under `<prefix>tus/`. */
  prefix: string
  /** Bytes per part of the multipart upload behind each tus upload (at least 5 MiB). */
  partSize: number
}

/**
 * Resumable uploads in the storage's bucket: @tus/s3-store turns each tus upload into a
 * multipart upload of `<prefix>tus/<id>` (plus `.info` and, between requests, a `.part`
 * shorter than a part). A finished upload is copied by the service to its storage key
 * (CopyObject, or a multipart copy above 5 GiB: no byte goes through mediactl), then its
 * objects are deleted.
 */
export class S3ResumableUploads implements ResumableUploadsPort {
  readonly dataStore: PrefixedS3Store
  private readonly bucket: string
  private readonly prefix: string

  constructor(options: S3ResumableUploadsOptions) {
    this.bucket = options.bucket
    this.prefix = options.prefix
    this.dataStore = new PrefixedS3Store(
      {
        partSize: options.partSize,
        cache: NO_CACHE as KvStore<never>,
        // Expiry is `expire`'s business: no creation-based expiration, so no object tags either.
        expirationPeriodInMilliseconds: 0,
        useTags: false,
        s3ClientConfig: { ...options.clientConfig, bucket: options.bucket },
      },
      `${options.prefix}tus/`,
    )
  }

  async adopt(uploadId: string, key: string): Promise<{ size: number }> {
    checkStorageKey(key)
    await finishedUpload(this.dataStore, uploadId)
    const source = this.dataStore.objectKey(uploadId)
    const target = this.prefix + key
    let size: number
    try {
      const head = await this.dataStore.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: source }))
      size = head.ContentLength ?? 0
      if (size <= MAX_COPY) {
        await this.dataStore.s3.send(
          new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: this.copySource(source) }),
        )
      } else {
        await this.multipartCopy(source, target, size)
      }
    } catch (error) {
      throw serviceError('adopt the tus upload into', key, this.bucket, error)
    }
    await this.remove(uploadId)
    return { size }
  }

  async remove(uploadId: string): Promise<void> {
    try {
      await this.dataStore.remove(uploadId)
    } catch (error) {
      throw serviceError('remove the tus upload', uploadId, this.bucket, resumableUploadError(uploadId, error))
    }
  }

  async expire(olderThan: Date): Promise<string[]> {
    const cutoff = olderThan.getTime()
    const keyPrefix = this.dataStore.keyPrefix
    // Latest activity per upload id, from the objects: the info, the short part, the finished object.
    const uploads = new Map<string, { latest: number; info: boolean }>()
    let ContinuationToken: string | undefined
    do {
      let page
      try {
        page = await this.dataStore.s3.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: keyPrefix, ContinuationToken }),
        )
      } catch (error) {
        throw serviceError('list the tus uploads', keyPrefix, this.bucket, error)
      }
      for (const object of page.Contents ?? []) {
        const match = /^([a-z0-9]+)(\.info|\.part)?$/.exec(object.Key?.slice(keyPrefix.length) ?? '')
        if (!match || !RESUMABLE_UPLOAD_ID.test(match[1]!)) continue
        const seen = uploads.get(match[1]!) ?? { latest: 0, info: false }
        seen.latest = Math.max(seen.latest, object.LastModified?.getTime() ?? 0)
        seen.info ||= match[2] === '.info'
        uploads.set(match[1]!, seen)
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (ContinuationToken)
    const removed: string[] = []
    for (const [id, seen] of uploads) {
      if (seen.latest >= cutoff) continue
      // Full parts are no objects: an upload receiving bytes shows in its parts only.
      const lastPart = seen.info ? await this.dataStore.lastPart(id) : null
      if (lastPart && lastPart.getTime() >= cutoff) continue
      await this.remove(id)
      removed.push(id)
    }
    return removed
  }

  /** Closes the store's S3 client. */
  close(): void {
    this.dataStore.s3.destroy()
  }

  private copySource(key: string): string {
    return encodeURI(`${this.bucket}/${key}`)
  }

  /** Copies an object larger than CopyObject allows, in parts copied by the service, COPY_QUEUE at a time. */
  private async multipartCopy(source: string, target: string, size: number): Promise<void> {
    const s3 = this.dataStore.s3
    const partSize = Math.max(COPY_PART, Math.ceil(size / MAX_PARTS))
    const count = Math.ceil(size / partSize)
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: target }))
    try {
      const etags: string[] = new Array<string>(count)
      let next = 0
      const worker = async (): Promise<void> => {
        while (next < count) {
          const index = next++
          const first = index * partSize
          const last = Math.min(size, first + partSize) - 1
          const { CopyPartResult } = await s3.send(
            new UploadPartCopyCommand({
              Bucket: this.bucket,
              Key: target,
              UploadId,
              PartNumber: index + 1,
              CopySource: this.copySource(source),
              CopySourceRange: `bytes=${first}-${last}`,
            }),
          )
          etags[index] = CopyPartResult?.ETag ?? ''
        }
      }
      await Promise.all(Array.from({ length: Math.min(COPY_QUEUE, count) }, worker))
      await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: target,
          UploadId,
          MultipartUpload: { Parts: etags.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) },
        }),
      )
    } catch (error) {
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId }))
        .catch(() => undefined)
      throw error
    }
  }
}
