import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/** One import that crosses a boundary, with the rule it breaks. */
export interface Violation {
  file: string
  imports: string
  rule: string
}

/** The `.ts` files below `dir`, at any depth (none when it does not exist). */
export function sources(dir: string): string[] {
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

/** The import graph of `folders` (repository paths, `.ts` files): each file with the files it imports. */
export function importGraph(root: string, folders: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const folder of folders) {
    for (const file of sources(join(root, folder))) {
      const from = relative(root, file).split(sep).join('/')
      graph.set(
        from,
        importsOf(root, file).map((target) => target.replace(/\.js$/, '.ts')),
      )
    }
  }
  return graph
}

/**
 * The import cycles of `graph`, one per strongly connected component of more than one file
 * (or a file importing itself), each as the files of one circle, first file repeated last.
 * Type-only imports count: a circle of types is still a circle a reader must hold in mind.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const edges = (file: string): string[] => (graph.get(file) ?? []).filter((target) => graph.has(target))
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next)
    next += 1
    stack.push(file)
    onStack.add(file)
    for (const target of edges(file)) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    for (;;) {
      const member = stack.pop()!
      onStack.delete(member)
      component.push(member)
      if (member === file) break
    }
    if (component.length > 1 || edges(file).includes(file)) components.push(component)
  }
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file)
  // One circle through each component, from its first file by name, by the shortest way back.
  return components.map((component) => {
    const members = new Set(component)
    const start = [...component].sort()[0]!
    const cameFrom = new Map<string, string>()
    const queue = [start]
    for (let i = 0; i < queue.length; i++) {
      for (const target of edges(queue[i]!).filter((t) => members.has(t))) {
        if (target === start) {
          const path = [queue[i]!]
          while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!)
          return [...path, start]
        }
        if (!cameFrom.has(target)) {
          cameFrom.set(target, queue[i]!)
          queue.push(target)
        }
      }
    }
    return [start, start]
  })
}
