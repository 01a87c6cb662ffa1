import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cached: string | undefined

function isOurs(dir: string): boolean {
  const file = join(dir, 'package.json')
  if (!existsSync(file)) return false
  return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'mediactl'
}

/** The folder holding mediactl's package.json, whether running from src/ or dist/. */
export function packageRoot(): string {
  if (cached) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!isOurs(dir)) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('mediactl: cannot find the package root (package.json)')
    dir = parent
  }
  cached = dir
  return dir
}
