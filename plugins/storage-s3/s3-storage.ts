import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { type Readable, pipeline } from 'node:stream'
import {
  type ByteRange,
  ByteCounter,
  StorageLimitError,
  StorageNotFoundError,
  type StoragePort,
  type StoredStat,
  type WriteOptions,
  checkByteRange,
  checkExpiry,
  checkStorageKey,
  checkStoragePrefix,
  emptyStream,
  isStorageKey,
} from '../../src/kernel/index.js'
import { type Covered, byteWindow, coveredRange } from './byte-window.js'
import { isInvalidRange, isNotFound, serviceError } from './s3-errors.js'

const MiB = 1024 * 1024

/** S3's most parts per multipart upload. */
const MAX_PARTS = 10_000

/** Longest lifetime of a SigV4 presigned URL (7 days), in seconds. */
const MAX_SIGNED_SECONDS = 7 * 24 * 60 * 60

/** Where S3Storage reports what it cannot undo (a multipart upload it could not abort). */
export interface S3StorageLog {
  warn(details: object, message: string): void
}

export interface S3StorageOptions {
  client: S3Client
  bucket: string
  /** Prepended to every key: empty, or segments ending with `/`. */
  prefix?: string
  /** Bytes per uploaded part (at least 5 MiB; default 8 MiB). */
  partSize?: number
  /** Parts of one write in flight at once (default 2). */
  queueSize?: number
  /** Client that signs URLs (its endpoint is the one clients reach); null: no signed URLs. */
  signer?: S3Client | null
  log?: S3StorageLog
}

/**
 * The storage port on an S3-compatible bucket. A write is a multipart upload fed part by
 * part from the stream (one PutObject when it fits in one part), so memory stays at a few
 * times partSize × (queueSize + 1) whatever the size; the object appears only when the
 * upload completes, and a failed or oversized write aborts it.
 */
export class S3Storage implements StoragePort {
  readonly bucket: string
  readonly prefix: string
  private readonly client: S3Client
  private readonly partSize: number
  private readonly queueSize: number
  private readonly signer: S3Client | null
  private readonly log: S3StorageLog | undefined

  constructor(options: S3StorageOptions) {
    this.client = options.client
    this.bucket = options.bucket
    this.prefix = options.prefix ?? ''
    this.partSize = options.partSize ?? 8 * MiB
    this.queueSize = options.queueSize ?? 2
    this.signer = options.signer === undefined ? options.client : options.signer
    this.log = options.log
  }

  async write(key: string, body: Readable, options: WriteOptions = {}): Promise<{ size: number }> {
    const Key = this.objectKey(key)
    const counter = new ByteCounter(options.maxBytes)
    let sourceError: unknown
    body.once('error', (error) => (sourceError = error))
    // Errors of either stream reach the upload through `counter`; a failed upload destroys both.
    pipeline(body, counter, () => {})
    // With a known ceiling, parts grow so that the largest allowed object fits in 10,000 of them.
    const partSize = Math.max(this.partSize, Math.ceil((options.maxBytes ?? 0) / MAX_PARTS))
    let upload: Upload | undefined
    try {
      upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key, Body: counter, ContentType: options.contentType },
        partSize,
        queueSize: this.queueSize,
        // Aborting ourselves, so that an abort the service refuses cannot hide why the write failed.
        leavePartsOnError: true,
      })
      await upload.done()
      return { size: counter.bytes }
    } catch (error) {
      counter.destroy()
      if (upload?.uploadId) await this.abortUpload(Key, upload.uploadId)
      if (error instanceof StorageLimitError || error === sourceError) throw error
      throw serviceError('write', key, this.bucket, error)
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const Key = this.objectKey(key)
    checkByteRange(range)
    // No Range header for the whole object: some services answer `bytes=0-` on an empty object oddly.
    const Range =
      range && (range.start > 0 || range.end !== undefined) ? `bytes=${range.start}-${range.end ?? ''}` : undefined
    let output
    try {
      output = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range }))
    } catch (error) {
      if (isNotFound(error)) throw new StorageNotFoundError(`nothing is stored under "${key}"`)
      if (isInvalidRange(error)) return emptyStream()
      throw serviceError('read', key, this.bucket, error)
    }
    const body = (output.Body as Readable | undefined) ?? emptyStream()
    return range && Range
      ? this.exactly(body, range, coveredRange(output.ContentRange, output.ContentLength), key)
      : body
  }

  async stat(key: string): Promise<StoredStat | null> {
    const Key = this.objectKey(key)
    try {
      const output = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }))
      return { size: output.ContentLength ?? 0, modifiedAt: output.LastModified ?? new Date(0) }
    } catch (error) {
      if (isNotFound(error)) return null
      throw serviceError('stat', key, this.bucket, error)
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key)
    try {
      // S3 answers 204 for an absent key too.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }))
    } catch (error) {
      if (isNotFound(error)) return
      throw serviceError('delete', key, this.bucket, error)
    }
  }

  async *list(prefix: string): AsyncIterable<string> {
    checkStoragePrefix(prefix)
    let ContinuationToken: string | undefined
    do {
      let page
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken }),
        )
      } catch (error) {
        throw serviceError('list', prefix, this.bucket, error)
      }
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(this.prefix.length)
        // Objects another tool put in the bucket are not keys of ours.
        if (isStorageKey(key)) yield key
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (ContinuationToken)
  }

  async signedUrl(key: string, expiresInSeconds: number): Promise<string | null> {
    const Key = this.objectKey(key)
    checkExpiry(expiresInSeconds)
    // SigV4 URLs live at most 7 days: longer means the file goes through the API.
    if (!this.signer || expiresInSeconds > MAX_SIGNED_SECONDS) return null
    return getSignedUrl(this.signer, new GetObjectCommand({ Bucket: this.bucket, Key }), {
      expiresIn: expiresInSeconds,
    })
  }

  /**
   * The asked range of a ranged answer. Services differ at the edges (an empty object, a
   * one-byte range, a range they ignore): the body passes unchanged when it is exactly the
   * range, is cut down when it holds more, and an answer holding less is an error.
   */
  private exactly(body: Readable, range: ByteRange, covered: Covered | null, key: string): Readable {
    if (!covered) return body
    const last = Math.min(range.end ?? Infinity, covered.total - 1)
    if (range.start > last) {
      body.destroy()
      return emptyStream()
    }
    if (covered.first === range.start && covered.last === last) return body
    if (covered.first <= range.start && covered.last >= last) {
      return byteWindow(body, range.start - covered.first, last - range.start + 1)
    }
    body.destroy()
    throw new Error(
      `storage-s3 asked bytes ${range.start}-${last} of "${key}" and the service answered ${covered.first}-${covered.last}`,
    )
  }

  /** The object key of a storage key, after checking the storage key. */
  private objectKey(key: string): string {
    checkStorageKey(key)
    return this.prefix + key
  }

  /** Drops the parts of a failed upload; if the service refuses, says so (a bucket lifecycle rule then removes them). */
  private async abortUpload(Key: string, UploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId }))
    } catch (error) {
      this.log?.warn(
        { bucket: this.bucket, key: Key, uploadId: UploadId, err: (error as Error).message },
        'could not abort a failed multipart upload; its parts stay until a lifecycle rule removes them',
      )
    }
  }
}
