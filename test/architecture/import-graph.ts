import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/** One import that crosses a boundary, with the rule it breaks. */
export interface Violation {
  file: string
  imports: string
  rule: string
}

function sources(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/**
 * The relative modules a file imports (static, re-exports and dynamic `import()`), as
 * repository paths. `declare module '...'` is no import: it adds a plugin's events to the
 * kernel's typed event map, which must name the module it augments.
 */
function importsOf(root: string, file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const augmented = new Set([...text.matchAll(/declare module ['"]([^'"]+)['"]/g)].map((m) => m[1]))
  const { importedFiles } = ts.preProcessFile(text, true, true)
  return importedFiles
    .map((entry) => entry.fileName)
    .filter((spec) => spec.startsWith('.') && !augmented.has(spec))
    .map((spec) =>
      relative(root, resolve(dirname(file), spec))
        .split(sep)
        .join('/'),
    )
}

/**
 * The imports of `root` (a checkout) that break the architecture's boundaries:
 * - the kernel (`src/kernel`) and shared helpers (`src/shared`) import no plugin;
 * - the operator tasks (`src/app`) and the CLI (`src/cli`) reach plugins through `src/catalog.ts` only;
 * - a plugin reaches the kernel through its public entry (`src/kernel/index.js`) only;
 * - a plugin imports another plugin only when it declares it in `dependsOn`, and then only
 *   that plugin's public entry (`plugins/<name>/index.js`), never its internals.
 * `dependsOn` answers a plugin's declared dependencies.
 */
export function importViolations(root: string, dependsOn: (plugin: string) => readonly string[]): Violation[] {
  const violations: Violation[] = []
  for (const folder of ['src/kernel', 'src/shared', 'src/app', 'src/cli']) {
    const rule =
      folder === 'src/app' || folder === 'src/cli'
        ? 'imports no plugin but through src/catalog.ts'
        : 'imports no plugin'
    for (const file of sources(join(root, folder))) {
      for (const target of importsOf(root, file)) {
        if (target.startsWith('plugins/')) {
          violations.push({ file: relative(root, file), imports: target, rule: `${folder} ${rule}` })
        }
      }
    }
  }
  for (const file of sources(join(root, 'plugins'))) {
    const owner = relative(join(root, 'plugins'), file).split(sep)[0]!
    for (const target of importsOf(root, file)) {
      const at = { file: relative(root, file).split(sep).join('/'), imports: target }
      if (target.startsWith('src/kernel/') && target !== 'src/kernel/index.js') {
        violations.push({ ...at, rule: 'a plugin uses the kernel through src/kernel/index.js only' })
      }
      if (!target.startsWith('plugins/')) continue
      const other = target.split('/')[1]!
      if (other === owner) continue
      if (!dependsOn(owner).includes(other)) {
        violations.push({ ...at, rule: `plugin "${owner}" imports "${other}" without declaring it in dependsOn` })
      } else if (target !== `plugins/${other}/index.js`) {
        violations.push({
          ...at,
          rule: `plugin "${owner}" imports an internal file of "${other}" instead of its index.js`,
        })
      }
    }
  }
  return violations
}
