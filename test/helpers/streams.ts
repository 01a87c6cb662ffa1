import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** A stream of `buffer`, handed out in `chunkSize` slices as the consumer asks. */
export function streamOf(buffer: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0
  return new Readable({
    read() {
      if (offset >= buffer.length) {
        this.push(null)
        return
      }
      this.push(buffer.subarray(offset, offset + chunkSize))
      offset += chunkSize
    },
  })
}

/** Reads a stream to its end into one buffer (small objects only). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** A stream that gives `head`, then fails with `error` instead of ending. */
export function failingStream(head: Buffer, error: Error, chunkSize = 64 * 1024): Readable {
  let offset = 0
  return new Readable({
    read() {
      if (offset >= head.length) {
        this.destroy(error)
        return
      }
      this.push(head.subarray(offset, offset + chunkSize))
      offset += chunkSize
    },
  })
}

/**
 * A large object that never exists in memory: `size` bytes made on demand, 1 MiB at a
 * time, each chunk a shared random block stamped with its index (so a lost, repeated or
 * reordered chunk changes the digest). `digest()` is the SHA-256 of the whole content.
 */
export class GeneratedObject {
  private static readonly CHUNK = 1024 * 1024
  private readonly block = randomBytes(GeneratedObject.CHUNK)

  constructor(readonly size: number) {}

  /** A fresh stream of the content, one chunk per read; `onChunk` runs before each chunk is made. */
  stream(onChunk?: (index: number) => void): Readable {
    let index = 0
    const next = (): Buffer | null => {
      if (index * GeneratedObject.CHUNK >= this.size) return null
      onChunk?.(index)
      return this.chunk(index++)
    }
    return new Readable({
      read() {
        this.push(next())
      },
    })
  }

  /** The SHA-256 of the content, computed chunk by chunk. */
  digest(): string {
    const hash = createHash('sha256')
    for (let index = 0; index * GeneratedObject.CHUNK < this.size; index += 1) hash.update(this.chunk(index))
    return hash.digest('hex')
  }

  private chunk(index: number): Buffer {
    const length = Math.min(GeneratedObject.CHUNK, this.size - index * GeneratedObject.CHUNK)
    const chunk = Buffer.from(this.block.subarray(0, length))
    if (length >= 8) chunk.writeBigUInt64BE(BigInt(index), 0)
    return chunk
  }
}

/** The SHA-256 of a stream's bytes, read chunk by chunk; `onChunk` gets the bytes read so far. */
export async function digestOf(
  stream: Readable,
  onChunk?: (size: number) => void,
): Promise<{ digest: string; size: number }> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of stream) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
    onChunk?.(size)
  }
  return { digest: hash.digest('hex'), size }
}

/**
 * A full garbage collection, for memory measurements: freed buffers otherwise stay counted
 * until V8 gets round to collecting them.
 */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
})()

/**
 * The largest growth of the process RSS over its value at creation, from samples taken
 * when asked (each after a full garbage collection, so what a backend holds on to shows
 * and what it merely allocated and dropped does not). Collections are slow: sample a few
 * times per operation, not per chunk.
 */
export class MemoryProbe {
  private readonly base = MemoryProbe.measure()
  private peak = this.base

  /** Bytes the RSS grew by at most, over the samples so far. */
  get growth(): number {
    return this.peak - this.base
  }

  sample(): void {
    this.peak = Math.max(this.peak, MemoryProbe.measure())
  }

  private static measure(): number {
    collectGarbage()
    return process.memoryUsage.rss()
  }
}
