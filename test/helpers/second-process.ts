import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kernel } from '../../src/kernel/index.js'
import type { TestApp } from './app.js'
import { DigestClient } from './digest-client.js'
import { bootOn } from './kernel.js'
import { waitFor } from './wait.js'

/** A second serving process on the database of `app` (another data dir and secret), as `serve --processes 2` runs. */
export interface SecondProcess {
  kernel: Kernel
  url: string
  /** A client of this process, signed in as `username` with `apiKey`. */
  client(username: string, apiKey: string): DigestClient
  close(): Promise<void>
}

/** Boots and listens a second process on the database of `app` (with `config` over its defaults); waits for both change feeds. */
export async function secondProcessOf(app: TestApp, config: Record<string, unknown> = {}): Promise<SecondProcess> {
  const database = app.kernel.config.database.url || `sqlite://${join(app.dataDir, 'mediactl.sqlite')}`
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-second-'))
  const kernel = await bootOn(dir, {
    overrides: { ...config, database: { url: database }, auth: { secret: 'another-process' } },
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  await waitFor(() => app.kernel.cachesLive && kernel.cachesLive, { message: 'both change feeds live' })
  return {
    kernel,
    url,
    client: (username, apiKey) => new DigestClient(url, username, apiKey),
    async close() {
      await kernel.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
