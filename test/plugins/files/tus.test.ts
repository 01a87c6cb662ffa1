import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FsStorage } from '../../../plugins/storage-fs/index.js'
import { definePlugin, loadConfig } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { rawRequest } from '../../helpers/digest-client.js'
import { list, type XmlObject } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'
import { tusSuite } from './tus.suite.js'

/** Resumable uploads (tus) with storage-fs: uploads in progress under `<root>/~tus`, renamed into place. */

tusSuite('storage-fs', {
  start: (options) => startApp(options),
  async leftovers(app) {
    return readdirSync(join(app.dataDir, 'storage', '~tus')).sort()
  },
  // storage-fs keeps every byte written before the cut.
  partSize: 2 * 1024 * 1024,
})

// With state-redis, the lock of an upload is the locks port's (shared by serving processes).
const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL
if (REDIS_URL) {
  const defaults = loadConfig({ env: {}, file: undefined }).config.plugins
  tusSuite('storage-fs, locks in Redis (state-redis)', {
    start: (options) =>
      startApp({
        ...options,
        config: { ...options?.config, redis_url: REDIS_URL, plugins: [...defaults, 'state-redis'] },
      }),
    async leftovers(app) {
      expect(app.kernel.services.ports.has('locks')).toBe(true)
      return readdirSync(join(app.dataDir, 'storage', '~tus')).sort()
    },
    partSize: 2 * 1024 * 1024,
  })
}

describe('tus uploads without a resumableUploads provider', () => {
  let app: TestApp

  beforeAll(async () => {
    // A storage backend providing the storage port only.
    const plain = definePlugin({
      name: 'storage-plain',
      provides: ['storage'],
      async register(ctx) {
        const storage = new FsStorage(join(ctx.kernelConfig.data_dir, 'plain'))
        await storage.open()
        ctx.provide('storage', storage)
      },
    })
    app = await startApp({
      config: { plugins: ['root', 'platforms', 'identity', 'metadata', 'files'] },
      plugins: [plain],
    })
  })
  afterAll(async () => app?.close())

  it('answers 501 with a clear message, and the other upload links still work', async () => {
    const alice = await userWithFlags(app, 'alice', ['file.create'])
    const links = list<XmlObject>(xmlOf(await alice.post('/files/upload_links'), 200).links.link)
    const json = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href']))
    const res = await rawRequest(`${json.origin}/upload/tus${json.search}`, 'POST', {
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' },
    })
    expect(res.status).toBe(501)
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 501,
        message:
          'Resumable uploads (tus) are not available with this storage backend: use the json or html upload link.',
      },
    })
  })
})
