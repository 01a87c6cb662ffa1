import { appendFileSync, existsSync, readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { DigestClient } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { makeMedia, uploadMedia, waitForStatus } from '../plugins/encoding/encoding.helpers.js'
import { type Server, cliJson, removeDir, serve, tempDir } from './harness.js'

/** Every file below a folder, relative, with `/` separators. */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/**
 * A real `mediactl serve` (inline queue, SQLite, storage-fs) killed with SIGKILL while it
 * encodes: once restarted, the job runs again from the start and the file ends with exactly
 * one set of renditions, rows and stored objects alike.
 */
describe('a serving process killed mid-encoding', () => {
  let dir: string
  let server: Server | undefined

  afterAll(async () => {
    await server?.stop('SIGKILL')
    if (dir) removeDir(dir)
  })

  it('restarts the encoding, which finishes with one set of renditions', { timeout: 240_000 }, async () => {
    dir = tempDir()
    const init = await cliJson<{ api_key: string }>(['init', '--admin-email', 'admin@example.org'], { cwd: dir })
    // Slow enough to be caught running: a longer video, one thread, two rungs.
    appendFileSync(
      join(dir, 'mediactl.yaml'),
      [
        '',
        'encoder-ffmpeg:',
        '  threads: 1',
        '  video:',
        '    preset: veryfast',
        '    ladder:',
        '      - { name: 360p, width: 640, height: 360 }',
        '      - { name: 180p, width: 320, height: 180 }',
        '  hls: { segment_duration: 2 }',
        'jobs: { concurrency: 1, backoff: 1 }',
        'queue-inline: { poll_interval: 0.2 }',
        '',
      ].join('\n'),
    )
    const video = await makeMedia('video', { seconds: 40, size: '640x360' })
    server = await serve([], { cwd: dir })
    const client = new DigestClient(server.url, 'admin', init.api_key)
    const slug = await uploadMedia(client, video, 'long.mp4')

    const before = await waitForStatus(client, slug, ['running', 'finished', 'failed'], 60_000)
    let sample = before.at(-1)!
    await waitFor(
      async () => {
        sample = (await waitForStatus(client, slug, ['running', 'finished', 'failed'])).at(-1)!
        return sample.status !== 'running' || sample.progress >= 15
      },
      { interval: 50, timeout: 60_000, message: 'the encoding to reach 15 %' },
    )
    expect(sample.status, 'still encoding when killed').toBe('running')
    expect(sample.progress).toBeLessThan(80)
    const killed = await server.stop('SIGKILL')
    expect(killed.signal).toBe('SIGKILL')
    server = undefined

    server = await serve([], { cwd: dir })
    const after = new DigestClient(server.url, 'admin', init.api_key)
    const samples = await waitForStatus(after, slug, ['finished', 'failed'], 180_000)
    expect(samples.at(-1), JSON.stringify(samples.slice(-3))).toEqual({ status: 'finished', progress: 100 })
    const exit = await server.stop()
    server = undefined
    expect(exit.code).toBe(0)

    const data = join(dir, 'data')
    const db = new Database(join(data, 'mediactl.sqlite'), { readonly: true })
    try {
      const file = db.prepare('select id, storage_prefix, size, stored_bytes from files where slug = ?').get(slug) as {
        id: number
        storage_prefix: string
        size: number
        stored_bytes: number
      }
      const rows = db
        .prepare('select kind, name, storage_key, size from renditions where file_id = ? order by kind, name')
        .all(file.id) as { kind: string; name: string; storage_key: string; size: number }[]
      expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual([
        'flavor:180p',
        'flavor:360p',
        'hls:hls',
        ...Array.from({ length: 10 }, (_, i) => `snapshot:${i}`),
        'thumbnail:thumbnail',
      ])
      expect(file.stored_bytes).toBe(file.size + rows.reduce((sum, r) => sum + r.size, 0))
      const job = db
        .prepare('select state, attempts from jobs where key = ? or payload like ?')
        .get(`encode:${file.id}`, `%"fileId":${file.id}%`) as { state: string; attempts: number }
      expect(job).toEqual({ state: 'succeeded', attempts: 2 })

      // Stored objects: the original, and one run's renditions, each recorded.
      const prefix = file.storage_prefix
      const objects = filesBelow(join(data, 'storage', ...prefix.split('/').filter(Boolean)))
      const renditions = objects.filter((name) => name.startsWith('renditions/')).map((name) => `${prefix}${name}`)
      expect(objects.filter((name) => !name.startsWith('renditions/'))).toEqual(['source'])
      expect(new Set(renditions.map((key) => key.split('/')[3])).size).toBe(1)
      for (const key of renditions) {
        expect(
          rows.some((r) => (r.storage_key.endsWith('/') ? key.startsWith(r.storage_key) : key === r.storage_key)),
          key,
        ).toBe(true)
      }
      for (const row of rows.filter((r) => !r.storage_key.endsWith('/'))) expect(renditions).toContain(row.storage_key)
    } finally {
      db.close()
    }
    // The killed run's work folder went with the run that replaced it.
    expect(filesBelow(join(data, 'work'))).toEqual([])
  })
})
