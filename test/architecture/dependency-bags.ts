import { readFileSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import ts from 'typescript'
import { sources } from './import-graph.js'

/** A place in a plugin that breaks the dependency-bag convention, with the rule it breaks. */
export interface BagProblem {
  file: string
  problem: string
}

/** The name of a plugin's bag: `files` → `FilesDeps`, `encoder-ffmpeg` → `EncoderFfmpegDeps`. */
export function bagName(plugin: string): string {
  return `${plugin
    .split(/[^a-zA-Z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Deps`
}

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/** The exported functions of a file, declared or bound to a `const`, by name. */
function exportedFunctions(file: ts.SourceFile): { name: string; fn: ts.SignatureDeclaration }[] {
  const found: { name: string; fn: ts.SignatureDeclaration }[] = []
  for (const statement of file.statements) {
    if (!isExported(statement)) continue
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      found.push({ name: statement.name.text, fn: statement })
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer
        if (ts.isIdentifier(declaration.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
          found.push({ name: declaration.name.text, fn: init })
        }
      }
    }
  }
  return found
}

const typeText = (file: ts.SourceFile, parameter: ts.ParameterDeclaration): string =>
  parameter.type ? parameter.type.getText(file).replace(/\s+/g, ' ') : '(untyped)'

const signature = (file: ts.SourceFile, name: string, fn: ts.SignatureDeclaration): string =>
  `${name}(${fn.parameters.map((p) => `${p.name.getText(file)}: ${typeText(file, p)}`).join(', ')})`

/**
 * The places of `root`'s plugins (`plugins/<plugin>/**.ts`) that break the convention of
 * docs/architecture.md (How a plugin gets what it uses):
 * - an exported route factory (`xRoutes`) takes `(r: Router)` or `(r: Router, deps: <Plugin>Deps)`;
 * - an exported job or set of listeners (`xJob`, `xListeners`) takes `(deps: <Plugin>Deps)`;
 * - only a plugin's `index.ts` takes a `PluginContext` (as a parameter of any function);
 * - a type named `*Deps` is the plugin's one bag, `<Plugin>Deps` in `plugins/<plugin>/<plugin>.deps.ts`.
 */
export function bagProblems(root: string): BagProblem[] {
  const problems: BagProblem[] = []
  const pluginsDir = join(root, 'plugins')
  for (const path of sources(pluginsDir)) {
    const plugin = relative(pluginsDir, path).split(sep)[0]!
    const bag = bagName(plugin)
    const at = relative(root, path).split(sep).join('/')
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
    const add = (problem: string) => problems.push({ file: at, problem })

    for (const { name, fn } of exportedFunctions(file)) {
      const types = fn.parameters.map((p) => typeText(file, p))
      if (/Routes$/.test(name)) {
        const ok = types[0] === 'Router' && (types.length === 1 || (types.length === 2 && types[1] === bag))
        if (!ok) add(`${signature(file, name, fn)} takes (r: Router) or (r: Router, deps: ${bag})`)
      } else if (/(Job|Listeners)$/.test(name)) {
        if (types.length !== 1 || types[0] !== bag) add(`${signature(file, name, fn)} takes (deps: ${bag})`)
      }
    }

    if (basename(path) !== 'index.ts') {
      const visit = (node: ts.Node): void => {
        if (ts.isParameter(node) && node.type && /\bPluginContext\b/.test(node.type.getText(file))) {
          add(`takes a PluginContext (${node.name.getText(file)}: ${typeText(file, node)}): only index.ts sees it`)
        }
        ts.forEachChild(node, visit)
      }
      visit(file)
    }

    for (const statement of file.statements) {
      if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) continue
      const name = statement.name.text
      if (!/Deps$/.test(name)) continue
      if (name !== bag || at !== `plugins/${plugin}/${plugin}.deps.ts`) {
        add(`declares ${name}: a plugin's one bag is ${bag}, in plugins/${plugin}/${plugin}.deps.ts`)
      }
    }
    if (
      basename(path) === `${plugin}.deps.ts` &&
      !file.statements.some((s) => ts.isInterfaceDeclaration(s) && s.name.text === bag && isExported(s))
    ) {
      add(`exports no interface ${bag}`)
    }
  }
  return problems
}
