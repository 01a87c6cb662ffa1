import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'

/** Open file descriptors of this process (the test app serves in-process). */
export function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length
}

/** Every file under a folder, recursively (relative paths, sorted); [] when it does not exist. */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
      .sort()
  } catch {
    return []
  }
}

/** What a request could leave behind: storage objects, temporary files, upload rows, used space. */
export interface Leftovers {
  /** Storage keys (every object of the storage port). */
  keys: string[]
  /** Files under the data dir's storage folder that are not finished objects (temporary writes). */
  temp: string[]
  /** Rows of the upload bookkeeping tables. */
  rows: Record<string, number>
}

const BOOKKEEPING = ['files', 'pending_uploads', 'storage_trash'] as const

/** A snapshot of what a request could leave behind. */
export async function leftovers(app: TestApp): Promise<Leftovers> {
  const keys: string[] = []
  for await (const key of app.kernel.services.ports.get('storage').list('')) keys.push(key)
  const rows: Record<string, number> = {}
  for (const table of BOOKKEEPING) {
    const result = await app.kernel.em().execute<{ n: number | string }[]>(`select count(*) as n from ${table}`)
    rows[table] = Number(result[0]!.n)
  }
  return { keys: keys.sort(), temp: filesUnder(join(app.dataDir, 'storage', '~tmp')), rows }
}

/**
 * Waits until the app holds exactly what `before` held (cleanup after a cut connection runs
 * in the background), then checks it: fails with the difference when it never gets there.
 */
export async function expectNoLeftovers(app: TestApp, before: Leftovers, timeout = 10_000): Promise<void> {
  let now = before
  const same = (a: Leftovers, b: Leftovers): boolean => JSON.stringify(a) === JSON.stringify(b)
  await waitFor(
    async () => {
      now = await leftovers(app)
      return same(now, before)
    },
    { timeout, message: 'leftovers to be cleaned up' },
  ).catch(() => undefined)
  expect(now).toEqual(before)
}

/** Waits until the open descriptors of this process come back to at most `baseline` (+ slack for the pool). */
export async function expectDescriptorsBack(baseline: number, slack = 8, timeout = 10_000): Promise<void> {
  let now = openDescriptors()
  await waitFor(() => (now = openDescriptors()) <= baseline + slack, { timeout, message: 'descriptors' }).catch(
    () => undefined,
  )
  expect(now).toBeLessThanOrEqual(baseline + slack)
}
