import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { byteWindow, coveredRange } from '../../../plugins/storage-s3/byte-window.js'
import { S3Storage, createS3Client, s3ConfigSchema } from '../../../plugins/storage-s3/index.js'
import { ConfigError, loadConfig } from '../../../src/kernel/index.js'
import { packageRoot } from '../../../src/shared/package-root.js'
import { bootOn } from '../../helpers/kernel.js'
import { type LocalS3, startLocalS3 } from '../../helpers/s3-server.js'
import { failingStream, readAll, streamOf } from '../../helpers/streams.js'

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'

const MiB = 1024 * 1024
const PLUGINS = 'root,platforms,identity,storage-s3'

describe('storage-s3 settings', () => {
  const issues = (input: unknown): string[] => {
    const result = s3ConfigSchema.safeParse(input)
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  }

  it('needs a bucket, and fills in the rest', () => {
    expect(issues({})).toEqual(['bucket: required: the name of an existing bucket'])
    expect(s3ConfigSchema.parse({ bucket: 'media' })).toEqual({
      endpoint: '',
      bucket: 'media',
      region: 'us-east-1',
      access_key_id: '',
      secret_access_key: '',
      force_path_style: false,
      prefix: '',
      part_size: 8 * MiB,
      queue_size: 2,
      max_sockets: 256,
      signed_urls: true,
      public_endpoint: '',
    })
  })

  it('wants both credentials or neither', () => {
    expect(issues({ bucket: 'media', access_key_id: 'id' })).toEqual([
      'secret_access_key: set access_key_id and secret_access_key together (or neither, to use the AWS SDK defaults)',
    ])
    expect(issues({ bucket: 'media', secret_access_key: 'secret' })).toHaveLength(1)
    expect(issues({ bucket: 'media', access_key_id: 'id', secret_access_key: 'secret' })).toEqual([])
  })

  it('checks the endpoint, prefix, part size and unknown keys', () => {
    expect(issues({ bucket: 'media', endpoint: 'minio:9000' })).toEqual([
      'endpoint: empty, or an http:// or https:// URL',
    ])
    expect(issues({ bucket: 'media', public_endpoint: 'ftp://x' })).toHaveLength(1)
    expect(issues({ bucket: 'media', endpoint: 'https://s3.example.org' })).toEqual([])
    expect(issues({ bucket: 'media', prefix: 'no-slash' })[0]).toMatch(/^prefix: empty, or path segments ending/)
    expect(issues({ bucket: 'media', prefix: '/abs/' })).toHaveLength(1)
    expect(issues({ bucket: 'media', prefix: 'Team/mediactl/' })).toEqual([])
    expect(issues({ bucket: 'media', part_size: MiB })[0]).toMatch(/^part_size: Number must be greater/)
    expect(issues({ bucket: 'media', buckets: 'x' })).toEqual([": Unrecognized key(s) in object: 'buckets'"])
  })

  it('accepts the section of config/production.example.yaml', () => {
    const { config } = loadConfig({ env: {}, file: join(packageRoot(), 'config/production.example.yaml') })
    expect(config.plugins).toContain('storage-s3')
    expect(config.plugins).not.toContain('storage-fs')
    expect(issues(config['storage-s3'])).toEqual([])
  })

  it('names a bad key under storage-s3 when the kernel boots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mediactl-s3-config-'))
    try {
      const boot = bootOn(dir, { env: { MEDIACTL_PLUGINS: PLUGINS, MEDIACTL_STORAGE_S3__QUEUE_SIZE: '0' } })
      const error = await boot.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toContain('storage-s3.bucket: required: the name of an existing bucket')
      expect((error as Error).message).toContain('storage-s3.queue_size: Number must be greater than or equal to 1')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('storage-s3 on a local S3 server', () => {
  let server: LocalS3
  let raw: S3Client
  let dir: string

  beforeAll(async () => {
    server = await startLocalS3()
    raw = createS3Client(s3ConfigSchema.parse(server.config))
    dir = mkdtempSync(join(tmpdir(), 'mediactl-s3-plugin-'))
  })
  afterAll(async () => {
    raw?.destroy()
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** The variables an operator would set, for the local server. */
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    MEDIACTL_PLUGINS: PLUGINS,
    MEDIACTL_STORAGE_S3__ENDPOINT: server.config.endpoint,
    MEDIACTL_STORAGE_S3__BUCKET: server.config.bucket,
    MEDIACTL_STORAGE_S3__ACCESS_KEY_ID: server.config.access_key_id,
    MEDIACTL_STORAGE_S3__SECRET_ACCESS_KEY: server.config.secret_access_key,
    MEDIACTL_STORAGE_S3__FORCE_PATH_STYLE: 'true',
    ...extra,
  })

  /** Boots with `variables`, runs `use` on the storage port, then closes the kernel. */
  async function withStorage<T>(
    variables: Record<string, string>,
    use: (storage: S3Storage) => Promise<T>,
  ): Promise<T> {
    const kernel = await bootOn(dir, { env: variables })
    try {
      const storage = kernel.services.ports.get('storage')
      expect(storage).toBeInstanceOf(S3Storage)
      return await use(storage as S3Storage)
    } finally {
      await kernel.close()
    }
  }

  it('is configured entirely from MEDIACTL_STORAGE_S3__* variables, and stores under its prefix', async () => {
    await withStorage(env({ MEDIACTL_STORAGE_S3__PREFIX: 'instance-a/' }), async (storage) => {
      expect(storage.prefix).toBe('instance-a/')
      await storage.write('media/1/source', streamOf(Buffer.from('hello')), { contentType: 'video/mp4' })
      expect((await readAll(await storage.read('media/1/source'))).toString()).toBe('hello')
      const listed = await raw.send(new ListObjectsV2Command({ Bucket: server.config.bucket, Prefix: 'instance-a/' }))
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['instance-a/media/1/source'])
    })
  })

  it('lists its own keys only: not outside its prefix, not objects that are not keys', async () => {
    await withStorage(env({ MEDIACTL_STORAGE_S3__PREFIX: 'instance-b/' }), async (storage) => {
      await storage.write('k/one', streamOf(Buffer.from('1')))
      for (const Key of ['instance-b/k/Upper.TXT', 'instance-c/k/two', 'k/three']) {
        await raw.send(new PutObjectCommand({ Bucket: server.config.bucket, Key, Body: 'x' }))
      }
      const keys: string[] = []
      for await (const key of storage.list('')) keys.push(key)
      expect(keys).toEqual(['k/one'])
    })
  })

  it('signs URLs clients can fetch, for public_endpoint when set, and not at all when signed_urls is false', async () => {
    await withStorage(env(), async (storage) => {
      await storage.write('signed/x', streamOf(Buffer.from('signed bytes')))
      const url = await storage.signedUrl('signed/x', 300)
      expect(url).toMatch(new RegExp(`^${server.config.endpoint}/${server.config.bucket}/signed/x\\?`))
      expect(await (await fetch(url!)).text()).toBe('signed bytes')
      // Beyond the 7 days a SigV4 URL may live, the file goes through the API.
      expect(await storage.signedUrl('signed/x', 8 * 24 * 3600)).toBeNull()
    })
    await withStorage(env({ MEDIACTL_STORAGE_S3__PUBLIC_ENDPOINT: 'https://media-files.example.org' }), async (s) => {
      expect(await s.signedUrl('signed/x', 300)).toMatch(
        /^https:\/\/media-files\.example\.org\/mediactl-test\/signed\/x\?/,
      )
    })
    await withStorage(env({ MEDIACTL_STORAGE_S3__SIGNED_URLS: 'false' }), async (storage) => {
      expect(await storage.signedUrl('signed/x', 300)).toBeNull()
    })
  })

  it('names the operation, key and bucket when the service refuses', async () => {
    await withStorage(env({ MEDIACTL_STORAGE_S3__BUCKET: 'no-such-bucket' }), async (storage) => {
      await expect(storage.write('a/b', streamOf(Buffer.from('x')))).rejects.toThrow(
        /^storage-s3 could not write "a\/b" in bucket "no-such-bucket": NoSuchBucket \(HTTP 404\): /,
      )
      await expect(storage.read('a/b')).rejects.toThrow(/^storage-s3 could not read "a\/b" in bucket "no-such-bucket"/)
      await expect(storage.list('a/')[Symbol.asyncIterator]().next()).rejects.toThrow(/could not list "a\/"/)
    })
  })

  it('reports a multipart upload it could not abort, and still fails with the source error', async () => {
    const warnings: string[] = []
    const storage = new S3Storage({
      client: raw,
      bucket: server.config.bucket,
      partSize: 5 * MiB,
      queueSize: 1,
      log: { warn: (_details, message) => warnings.push(message) },
    })
    const failure = new Error('source failed')
    // s3rver refuses AbortMultipartUpload (405): the warning is what an operator would see.
    await expect(storage.write('abort/x', failingStream(Buffer.alloc(12 * MiB), failure, MiB))).rejects.toBe(failure)
    expect(warnings).toEqual([
      'could not abort a failed multipart upload; its parts stay until a lifecycle rule removes them',
    ])
    expect(await storage.stat('abort/x')).toBeNull()
  })
})

describe('ranged answers that hold more than asked', () => {
  it('reads Content-Range, or the length of a whole answer', () => {
    expect(coveredRange('bytes 0-999/1000', 1000)).toEqual({ first: 0, last: 999, total: 1000 })
    expect(coveredRange(undefined, 1000)).toEqual({ first: 0, last: 999, total: 1000 })
    expect(coveredRange('bytes */1000', undefined)).toBeNull()
    expect(coveredRange(undefined, undefined)).toBeNull()
  })

  it('cuts an answer down to the window, across chunk boundaries', async () => {
    const data = Buffer.from(Array.from({ length: 100 }, (_, i) => i))
    const chunks = (): Readable => Readable.from([data.subarray(0, 30), data.subarray(30, 70), data.subarray(70)])
    expect(await readAll(byteWindow(chunks(), 0, 1))).toEqual(data.subarray(0, 1))
    expect(await readAll(byteWindow(chunks(), 25, 50))).toEqual(data.subarray(25, 75))
    expect(await readAll(byteWindow(chunks(), 99, 1))).toEqual(data.subarray(99))
  })

  it('stops reading the answer once the window is full', async () => {
    const source = Readable.from([Buffer.alloc(10), Buffer.alloc(10), Buffer.alloc(10)])
    expect((await readAll(byteWindow(source, 0, 5))).length).toBe(5)
    expect(source.destroyed).toBe(true)
  })
})
