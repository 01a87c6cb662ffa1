import { readFileSync } from 'node:fs'
import ts from 'typescript'

/** The names a module exports through `export { ... } from` and `export <declaration>`, sorted. */
export function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const names: string[] = []
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause) throw new Error(`${file}: "export *" hides the names it exports; list them`)
      if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.push(element.name.text)
      }
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      const name = (statement as ts.DeclarationStatement).name
      if (name && ts.isIdentifier(name)) names.push(name.text)
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text)
        }
      }
    }
  }
  return names.sort()
}
