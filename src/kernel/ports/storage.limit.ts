import { Transform, type TransformCallback } from 'node:stream'
import { checkMaxBytes } from './storage.checks.js'
import { StorageLimitError } from './storage.port.js'

/**
 * A pass-through stream that counts the bytes of a write and fails with StorageLimitError
 * as soon as more than `maxBytes` went through, so a backend stops reading the source at
 * the limit instead of after the whole upload.
 */
export class ByteCounter extends Transform {
  /** Bytes passed so far. */
  bytes = 0

  constructor(private readonly maxBytes?: number) {
    super()
    checkMaxBytes(maxBytes)
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes) {
      callback(new StorageLimitError(this.maxBytes))
      return
    }
    callback(null, chunk)
  }
}
