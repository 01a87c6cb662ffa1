import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/** A plugin source that reads another plugin's configuration section. */
export interface ConfigRead {
  file: string
  reads: string
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return entry === 'browser' ? [] : sources(path)
    return entry.endsWith('.ts') ? [path] : []
  })
}

/**
 * Reads of another plugin's settings by its section rather than through what that plugin
 * exposes (`ctx.use(<PLUGIN>_SETTINGS)`): `kernelConfig.<section>` or `kernelConfig['<section>']`
 * for a section that is a plugin's, a plugin definition's `config.parse(...)` (re-validating
 * its section), and `pluginConfig(...)`. Each plugin's own section comes as `ctx.config`.
 */
export function configReads(root: string, pluginNames: readonly string[]): ConfigRead[] {
  const sections = pluginNames.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')
  const patterns = [
    new RegExp(`kernelConfig(?:\\.(?:${sections})\\b|\\[['"](?:${sections})['"]\\])`, 'g'),
    /\b\w+\.config[!?]?\.parse\(/g,
    /\bpluginConfig\(/g,
  ]
  const found: ConfigRead[] = []
  for (const path of sources(join(root, 'plugins'))) {
    const text = readFileSync(path, 'utf8')
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) found.push({ file: relative(root, path), reads: match[0] })
    }
  }
  return found
}
