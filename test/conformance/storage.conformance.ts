import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StorageKeyError, StorageLimitError, StorageNotFoundError, type StoragePort } from '../../src/kernel/index.js'
import { GeneratedObject, digestOf, failingStream, MemoryProbe, readAll, streamOf } from '../helpers/streams.js'
import { waitFor } from '../helpers/wait.js'

/** A backend ready for the suite, and how to tidy up after it. */
export interface StorageUnderTest {
  storage: StoragePort
  cleanup(): Promise<void>
  /**
   * Temporary data the backend still holds for writes that are over (storage-fs: files in
   * its temporary folder; storage-s3: multipart uploads in progress). Omitted when the
   * backend has no way to tell (s3rver cannot list multipart uploads).
   */
  leftovers?(): Promise<string[]>
}

const MiB = 1024 * 1024
/**
 * Size of the large streamed object: big enough that holding it in memory stands out from
 * the bounded buffers of a streaming backend (S3 parts in flight).
 */
const LARGE = 128 * MiB
/** Memory a write or read of LARGE may add to the process: far below the object's size. */
const LARGE_RSS_BUDGET = LARGE / 2
/** MiB between memory samples of the large object (each costs a full garbage collection). */
const SAMPLE_EVERY_CHUNKS = 16
/** Bigger than one S3 part (5 MiB at least), so failures are exercised inside a multipart upload. */
const MULTIPART = 6 * MiB

/** The keys the suite's `invalid key` tests use, each refused for its own reason. */
const INVALID_KEYS = ['../x', 'a//b', '/abs', 'A', 'a/./b', 'a/../b', '', 'a/', 'x y', 'é', 'a\\b', 'k'.repeat(513)]
const INVALID_PREFIXES = ['../', 'a//', '/abs/', 'A/', 'a/./b/', 'a', '/', 'k'.repeat(513) + '/']

/**
 * The StoragePort contract (src/kernel/ports/storage.port.ts) as tests: every storage
 * backend runs this same suite. `makeStorage` is called once; each test uses its own keys.
 */
/** What a backend's store guarantees beyond the port, where a test double falls short of the real service. */
export interface StoreTraits {
  /**
   * Concurrent writes of one key leave one whole write, the last to complete (S3 and the disk do; s3rver, under load,
   * may not).
   */
  atomicOverwrite?: boolean
}

export function storageConformance(
  name: string,
  makeStorage: () => Promise<StorageUnderTest>,
  traits: StoreTraits = {},
): void {
  describe(`storage port conformance: ${name}`, () => {
    let sut: StorageUnderTest
    let storage: StoragePort

    beforeAll(async () => {
      sut = await makeStorage()
      storage = sut.storage
    })
    afterAll(async () => {
      await sut?.cleanup()
    })

    const read = async (key: string, range?: { start: number; end?: number }): Promise<Buffer> =>
      readAll(await storage.read(key, range))
    const put = (key: string, data: Buffer): Promise<{ size: number }> => storage.write(key, streamOf(data))
    const list = async (prefix: string): Promise<string[]> => {
      const keys: string[] = []
      for await (const key of storage.list(prefix)) keys.push(key)
      return keys.sort()
    }
    const expectNoLeftovers = async (): Promise<void> => {
      if (sut.leftovers) expect(await sut.leftovers()).toEqual([])
    }

    describe('write and read', () => {
      it('stores a stream and reads it back whole, resolving with the size', async () => {
        const data = randomBytes(300 * 1024 + 7)
        expect(await put('whole/object.bin', data)).toEqual({ size: data.length })
        expect((await read('whole/object.bin')).equals(data)).toBe(true)
      })

      it('stores a 0-byte object', async () => {
        expect(await put('empty/zero', Buffer.alloc(0))).toEqual({ size: 0 })
        expect((await storage.stat('empty/zero'))?.size).toBe(0)
        expect((await read('empty/zero')).length).toBe(0)
        expect(await list('empty/')).toEqual(['empty/zero'])
      })

      it('replaces an object written again', async () => {
        await put('replace/it', randomBytes(5000))
        const second = randomBytes(1200)
        await put('replace/it', second)
        expect((await read('replace/it')).equals(second)).toBe(true)
        expect((await storage.stat('replace/it'))?.size).toBe(1200)
      })

      it('accepts every key character: lowercase letters, digits, -, _ and . in segments', async () => {
        const key = 'chars/a-b_c.d/0.9/.hidden/x..y'
        await put(key, Buffer.from('ok'))
        expect((await read(key)).toString()).toBe('ok')
      })
    })

    describe('byte ranges', () => {
      const data = randomBytes(1000)
      beforeAll(async () => {
        await put('range/object', data)
      })

      it('reads from a start to the end', async () => {
        expect((await read('range/object', { start: 10 })).equals(data.subarray(10))).toBe(true)
      })

      it('reads an inclusive start-end range', async () => {
        expect((await read('range/object', { start: 10, end: 19 })).equals(data.subarray(10, 20))).toBe(true)
      })

      it('reads a single byte, first and last', async () => {
        expect((await read('range/object', { start: 0, end: 0 })).equals(data.subarray(0, 1))).toBe(true)
        expect((await read('range/object', { start: 999, end: 999 })).equals(data.subarray(999))).toBe(true)
        expect((await read('range/object', { start: 999 })).equals(data.subarray(999))).toBe(true)
      })

      it('reads { start: 0 } as the whole object', async () => {
        expect((await read('range/object', { start: 0 })).equals(data)).toBe(true)
      })

      it('stops an end past the last byte at the last byte', async () => {
        expect((await read('range/object', { start: 500, end: 5000 })).equals(data.subarray(500))).toBe(true)
      })

      it('reads no bytes for a range starting at or after the end', async () => {
        expect((await read('range/object', { start: 1000 })).length).toBe(0)
        expect((await read('range/object', { start: 5000, end: 6000 })).length).toBe(0)
      })

      it('refuses a negative, fractional or reversed range with RangeError', async () => {
        for (const range of [{ start: -1 }, { start: 1.5 }, { start: 5, end: 4 }, { start: 0, end: -1 }]) {
          await expect(storage.read('range/object', range)).rejects.toBeInstanceOf(RangeError)
        }
      })

      it('answers StorageNotFoundError for a range of a missing key', async () => {
        await expect(storage.read('range/missing', { start: 0, end: 9 })).rejects.toBeInstanceOf(StorageNotFoundError)
      })
    })

    describe('stat', () => {
      it('gives the size and the time of the last write', async () => {
        const before = Date.now()
        await put('stat/object', randomBytes(4321))
        const info = await storage.stat('stat/object')
        expect(info?.size).toBe(4321)
        expect(info?.modifiedAt).toBeInstanceOf(Date)
        // Services keep whole seconds, and clocks differ a little.
        expect(info!.modifiedAt.getTime()).toBeGreaterThan(before - 60_000)
        expect(info!.modifiedAt.getTime()).toBeLessThan(Date.now() + 60_000)
      })

      it('answers null for a missing key, and for a key that is only a prefix of others', async () => {
        expect(await storage.stat('stat/missing')).toBeNull()
        await put('stat/folder/inner', Buffer.from('x'))
        expect(await storage.stat('stat/folder')).toBeNull()
      })
    })

    describe('delete', () => {
      it('removes an object; deleting it again succeeds', async () => {
        await put('delete/object', Buffer.from('bye'))
        await storage.delete('delete/object')
        expect(await storage.stat('delete/object')).toBeNull()
        await expect(storage.read('delete/object')).rejects.toBeInstanceOf(StorageNotFoundError)
        await expect(storage.delete('delete/object')).resolves.toBeUndefined()
      })

      it('leaves the other objects of the prefix in place', async () => {
        await put('delete/keep/a', Buffer.from('a'))
        await put('delete/keep/b', Buffer.from('b'))
        await storage.delete('delete/keep/a')
        expect(await list('delete/keep/')).toEqual(['delete/keep/b'])
        expect((await read('delete/keep/b')).toString()).toBe('b')
      })

      it('succeeds for a key never written', async () => {
        await expect(storage.delete('delete/never/written')).resolves.toBeUndefined()
      })
    })

    describe('missing keys', () => {
      it('read rejects with StorageNotFoundError, stat answers null', async () => {
        await expect(storage.read('missing/key')).rejects.toBeInstanceOf(StorageNotFoundError)
        expect(await storage.stat('missing/key')).toBeNull()
      })
    })

    describe('invalid keys', () => {
      it('are refused with StorageKeyError by every method, before any byte is read', async () => {
        for (const key of INVALID_KEYS) {
          const body = streamOf(Buffer.from('never stored'))
          await expect(storage.write(key, body), key).rejects.toBeInstanceOf(StorageKeyError)
          // The source is left to the caller, unread.
          expect(body.readableEnded, key).toBe(false)
          body.destroy()
          await expect(storage.read(key), key).rejects.toBeInstanceOf(StorageKeyError)
          await expect(storage.read(key, { start: 0, end: 1 }), key).rejects.toBeInstanceOf(StorageKeyError)
          await expect(storage.stat(key), key).rejects.toBeInstanceOf(StorageKeyError)
          await expect(storage.delete(key), key).rejects.toBeInstanceOf(StorageKeyError)
          await expect(storage.signedUrl(key, 60), key).rejects.toBeInstanceOf(StorageKeyError)
        }
      })

      it('are refused as list prefixes, as is a prefix without its final /', async () => {
        for (const prefix of INVALID_PREFIXES) {
          await expect(list(prefix), prefix).rejects.toBeInstanceOf(StorageKeyError)
        }
      })
    })

    describe('a large object', () => {
      const large = new GeneratedObject(LARGE)

      it(`streams ${LARGE / MiB} MiB in and out without holding it in memory`, async () => {
        // Memory is sampled every SAMPLE_EVERY bytes, as the source makes them and as the reader gets them.
        const writing = new MemoryProbe()
        const stream = large.stream((index) => index % SAMPLE_EVERY_CHUNKS === 0 && writing.sample())
        expect(await storage.write('large/object', stream)).toEqual({ size: LARGE })
        expect(writing.growth, 'RSS growth while writing').toBeLessThan(LARGE_RSS_BUDGET)
        expect((await storage.stat('large/object'))?.size).toBe(LARGE)

        const reading = new MemoryProbe()
        let sampled = 0
        const back = await digestOf(await storage.read('large/object'), (size) => {
          if (size - sampled < SAMPLE_EVERY_CHUNKS * MiB) return
          sampled = size
          reading.sample()
        })
        expect(back).toEqual({ digest: large.digest(), size: LARGE })
        expect(reading.growth, 'RSS growth while reading').toBeLessThan(LARGE_RSS_BUDGET)

        const tail = await read('large/object', { start: LARGE - 10 })
        expect(tail.length).toBe(10)
        await storage.delete('large/object')
      }, 120_000)

      it('may be read in part: destroying the stream early frees it', async () => {
        await storage.write('large/partial', new GeneratedObject(3 * MiB).stream())
        const stream = await storage.read('large/partial')
        const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve))
        expect(first.length).toBeGreaterThan(0)
        stream.destroy()
        await storage.delete('large/partial')
        expect(await storage.stat('large/partial')).toBeNull()
      })
    })

    describe('maxBytes', () => {
      it('accepts an object of exactly maxBytes', async () => {
        const data = randomBytes(10_000)
        expect(await storage.write('limit/exact', streamOf(data), { maxBytes: 10_000 })).toEqual({ size: 10_000 })
        expect((await read('limit/exact')).equals(data)).toBe(true)
        expect(await storage.write('limit/zero', streamOf(Buffer.alloc(0)), { maxBytes: 0 })).toEqual({ size: 0 })
      })

      it('refuses one byte over with StorageLimitError and stores nothing', async () => {
        const write = storage.write('limit/over', streamOf(randomBytes(10_001)), { maxBytes: 10_000 })
        const error = await write.catch((e: unknown) => e)
        expect(error).toBeInstanceOf(StorageLimitError)
        expect((error as StorageLimitError).maxBytes).toBe(10_000)
        expect(await storage.stat('limit/over')).toBeNull()
        await expectNoLeftovers()
      })

      it('leaves the previous object untouched when a replacement is too large', async () => {
        const previous = randomBytes(2000)
        await put('limit/kept', previous)
        await expect(
          storage.write('limit/kept', streamOf(randomBytes(2001)), { maxBytes: 2000 }),
        ).rejects.toBeInstanceOf(StorageLimitError)
        expect((await read('limit/kept')).equals(previous)).toBe(true)
      })

      it('stops a multipart-sized write at the limit, leaving nothing', async () => {
        const previous = randomBytes(100)
        await put('limit/multipart', previous)
        const source = new GeneratedObject(3 * MULTIPART).stream()
        await expect(storage.write('limit/multipart', source, { maxBytes: MULTIPART + 1 })).rejects.toBeInstanceOf(
          StorageLimitError,
        )
        // The source is not read to its end once the limit is crossed.
        expect(source.readableEnded).toBe(false)
        expect((await read('limit/multipart')).equals(previous)).toBe(true)
        await expectNoLeftovers()
      })

      it('refuses a negative or fractional maxBytes with RangeError', async () => {
        for (const maxBytes of [-1, 1.5]) {
          await expect(storage.write('limit/bad', streamOf(Buffer.from('x')), { maxBytes })).rejects.toBeInstanceOf(
            RangeError,
          )
        }
      })
    })

    describe('a failing source', () => {
      it('rejects with the source error and leaves the key absent', async () => {
        const failure = new Error('client went away')
        await expect(storage.write('fail/absent', failingStream(randomBytes(100_000), failure))).rejects.toBe(failure)
        expect(await storage.stat('fail/absent')).toBeNull()
        await expectNoLeftovers()
      })

      it('keeps the previous content when the replacement fails', async () => {
        const previous = randomBytes(5000)
        await put('fail/kept', previous)
        const failure = new Error('disk of the client exploded')
        await expect(storage.write('fail/kept', failingStream(randomBytes(50_000), failure))).rejects.toBe(failure)
        expect((await read('fail/kept')).equals(previous)).toBe(true)
        await expectNoLeftovers()
      })

      it('fails cleanly after more than one part was sent', async () => {
        const previous = randomBytes(100)
        await put('fail/multipart', previous)
        const failure = new Error('connection reset')
        const head = Buffer.alloc(2 * MULTIPART, 7)
        await expect(storage.write('fail/multipart', failingStream(head, failure, MiB))).rejects.toBe(failure)
        expect((await read('fail/multipart')).equals(previous)).toBe(true)
        await expectNoLeftovers()
      })

      it('fails with a source that errors before its first byte', async () => {
        const failure = new Error('nothing at all')
        await expect(storage.write('fail/first', failingStream(Buffer.alloc(0), failure))).rejects.toBe(failure)
        expect(await storage.stat('fail/first')).toBeNull()
        await expectNoLeftovers()
      })
    })

    describe('visibility', () => {
      it('shows nothing of a write in progress: readers see the previous object until it completes', async () => {
        const previous = Buffer.from('previous content')
        await put('visible/object', previous)
        const source = new Readable({ read() {} })
        const writing = storage.write('visible/object', source)
        source.push(Buffer.alloc(MiB, 1))
        // Wait until the backend took the pushed bytes: the write is under way.
        await waitFor(() => source.readableLength === 0, { interval: 5, message: 'the backend to take the bytes' })
        expect((await storage.stat('visible/object'))?.size).toBe(previous.length)
        expect((await read('visible/object')).equals(previous)).toBe(true)
        source.push(Buffer.alloc(MiB, 2))
        source.push(null)
        expect(await writing).toEqual({ size: 2 * MiB })
        const now = await read('visible/object')
        expect(now.length).toBe(2 * MiB)
        expect(now[0]).toBe(1)
        expect(now[2 * MiB - 1]).toBe(2)
      })

      it('shows nothing at all of a first write in progress', async () => {
        const source = new Readable({ read() {} })
        const writing = storage.write('visible/new', source)
        source.push(Buffer.alloc(100_000, 3))
        await waitFor(() => source.readableLength === 0, { interval: 5, message: 'the backend to take the bytes' })
        expect(await storage.stat('visible/new')).toBeNull()
        expect(await list('visible/')).not.toContain('visible/new')
        source.push(null)
        await writing
        expect((await storage.stat('visible/new'))?.size).toBe(100_000)
      })
    })

    describe('concurrent writes', () => {
      it('to different keys all land whole', async () => {
        const objects = Array.from({ length: 8 }, (_, i) => ({
          key: `concurrent/many/${i}`,
          data: randomBytes(200_000 + i),
        }))
        await Promise.all(objects.map(({ key, data }) => storage.write(key, streamOf(data, 16 * 1024))))
        for (const { key, data } of objects) expect((await read(key)).equals(data), key).toBe(true)
      })

      it.skipIf(traits.atomicOverwrite === false)(
        'to one key leave exactly one of the writes, never a mix',
        async () => {
          // Different sizes and contents, fed in small interleaving chunks.
          const versions = Array.from({ length: 6 }, (_, i) => Buffer.alloc(100_000 + i * 10_000, 65 + i))
          const results = await Promise.all(
            versions.map((data) => storage.write('concurrent/one', streamOf(data, 8 * 1024))),
          )
          expect(results.map((r) => r.size)).toEqual(versions.map((v) => v.length))
          const stored = await read('concurrent/one')
          const winner = versions.find((v) => v.equals(stored))
          expect(winner, 'the stored object is one whole write').toBeDefined()
          expect((await storage.stat('concurrent/one'))?.size).toBe(stored.length)
        },
      )

      // s3rver streams a PUT into the object's file as it comes and answers before that file is written: under load a
      // read after the slow write saw '' (CI, 2026-11-29). The trait says so; Amazon S3 and the disk are checked.
      it.skipIf(traits.atomicOverwrite === false)('the last write that completes wins', async () => {
        await put('concurrent/last', Buffer.from('first'))
        await put('concurrent/last', Buffer.from('second'))
        const slow = new Readable({ read() {} })
        const slowWrite = storage.write('concurrent/last', slow)
        slow.push(Buffer.from('slow '))
        await put('concurrent/last', Buffer.from('fast'))
        slow.push(Buffer.from('but last'))
        slow.push(null)
        await slowWrite
        expect((await read('concurrent/last')).toString()).toBe('slow but last')
      })
    })

    describe('list', () => {
      beforeAll(async () => {
        for (const key of ['list/a', 'list/b/c', 'list/b/d', 'list/b/e/f', 'listing/x', 'other/y']) {
          await put(key, Buffer.from(key))
        }
      })

      it('gives every key under a prefix, at any depth', async () => {
        expect(await list('list/')).toEqual(['list/a', 'list/b/c', 'list/b/d', 'list/b/e/f'])
        expect(await list('list/b/')).toEqual(['list/b/c', 'list/b/d', 'list/b/e/f'])
      })

      it('stops at the / of the prefix: `list/` does not give `listing/x`', async () => {
        expect(await list('list/')).not.toContain('listing/x')
      })

      it('gives nothing for a prefix without keys', async () => {
        expect(await list('nothing/here/')).toEqual([])
      })

      it('gives every key for the empty prefix', async () => {
        expect(await list('')).toEqual(expect.arrayContaining(['list/a', 'list/b/e/f', 'listing/x', 'other/y']))
      })

      it('no longer gives a deleted key', async () => {
        await put('list/gone', Buffer.from('x'))
        await storage.delete('list/gone')
        expect(await list('list/')).not.toContain('list/gone')
      })
    })

    describe('signedUrl', () => {
      it('answers null, or a URL that serves the object without credentials', async () => {
        const data = randomBytes(2048)
        await put('signed/object', data)
        const url = await storage.signedUrl('signed/object', 60)
        if (url === null) return
        const response = await fetch(url)
        expect(response.status).toBe(200)
        expect(Buffer.from(await response.arrayBuffer()).equals(data)).toBe(true)
      })

      it('refuses a lifetime that is not whole seconds > 0 with RangeError', async () => {
        for (const seconds of [0, -5, 1.5]) {
          await expect(storage.signedUrl('signed/object', seconds)).rejects.toBeInstanceOf(RangeError)
        }
      })
    })

    it('leaves no temporary data behind after all of the above', async () => {
      await expectNoLeftovers()
    })
  })
}
