import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'

/**
 * A temporary checkout for a check to read, removed after the suite: `write` puts a file at
 * a path relative to its `root`, making the folders.
 */
export function scratchTree(prefix: string): { root: string; write(path: string, text: string): void } {
  const root = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  return {
    root,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    },
  }
}
