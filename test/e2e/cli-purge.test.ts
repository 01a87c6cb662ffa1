import { existsSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootKernel } from '../../src/app/boot.js'
import { createLogger } from '../../src/kernel/index.js'
import { cli, cliJson, removeDir, tempDir } from './harness.js'

/** `mediactl purge`: removes what abandoned uploads and deletions left behind, once. */

let dir: string
const opts = (): { cwd: string } => ({ cwd: dir })

/** Runs `work` with the instance's kernel, in process. */
async function withKernel<T>(work: (kernel: Awaited<ReturnType<typeof bootKernel>>) => Promise<T>): Promise<T> {
  const kernel = await bootKernel({ cwd: dir, env: {}, logger: createLogger('silent') })
  try {
    return await work(kernel)
  } finally {
    await kernel.close()
  }
}

const KEY = 'files/00000000000000000000abcd/source'

beforeAll(async () => {
  dir = tempDir()
  await cliJson(['init', '--admin-email', 'admin@example.org'], opts())
  // What a killed upload leaves: stored bytes, and the guard it filed before they streamed in, now due.
  await withKernel(async (kernel) => {
    await kernel.services.ports.get('storage').write(KEY, Readable.from([Buffer.from('left behind')]))
    await kernel
      .em()
      .getKnex()
      .insert({ target: 'files/00000000000000000000abcd/', not_before: new Date(0), created_at: new Date(0) })
      .into('storage_trash')
  })
  // And its partial write, two days old (a younger one may belong to a write in flight).
  const part = join(dir, 'data', 'storage', '~tmp', 'killed.part')
  writeFileSync(part, 'partial')
  const old = new Date(Date.now() - 2 * 24 * 3600 * 1000)
  utimesSync(part, old, old)
})

afterAll(() => removeDir(dir))

describe('mediactl purge', () => {
  it('removes the bytes of an upload that never became a file, and says what it removed (--json)', async () => {
    expect(await cliJson(['purge'], opts())).toEqual({
      removed: {
        'pending uploads': 0,
        'expired resumable uploads': 0,
        'stored objects of deleted files': 1,
        // Swept already as the command's storage opened (at every start, as in a serving process's purge).
        'temporary files of interrupted writes': 0,
        'expired recorder codes': 0,
        'expired player view sessions': 0,
        'webhook events': 0,
        'ended console sessions': 0,
        'expired sign-in links': 0,
        'old failed sign-ins': 0,
      },
    })
    expect(await withKernel((kernel) => kernel.services.ports.get('storage').stat(KEY))).toBeNull()
    expect(existsSync(join(dir, 'data', 'storage', '~tmp', 'killed.part'))).toBe(false)
  })

  it('finds nothing the second time; the text output lists each count', async () => {
    const result = await cli(['purge'], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      'Removed:\n  temporary files of interrupted writes: 0\n  ended console sessions: 0\n  expired sign-in links: 0\n  old failed sign-ins: 0\n  pending uploads: 0\n  expired resumable uploads: 0\n  stored objects of deleted files: 0\n  expired recorder codes: 0\n  expired player view sessions: 0\n  webhook events: 0\n',
    )
  })
})
