import { readFileSync } from 'node:fs'

/** A file of the repository, as text. */
export function repoFile(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
}

/**
 * The part of a Markdown document under a heading (the heading line as written, `## Plugins`),
 * up to the next heading of the same or a higher level (any next heading when `own` is true:
 * the text before the subsections).
 */
export function section(document: string, heading: string, own = false): string {
  const lines = document.split('\n')
  const start = lines.findIndex((line) => line === heading || line.startsWith(`${heading} `))
  if (start === -1) throw new Error(`no heading "${heading}"`)
  const level = /^#+/.exec(heading)![0].length
  let end = lines.length
  let fenced = false
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) fenced = !fenced
    const hashes = /^(#+) /.exec(lines[i]!)?.[1]
    if (!fenced && hashes && (own || hashes.length <= level)) {
      end = i
      break
    }
  }
  return lines.slice(start, end).join('\n')
}

/** The sections of a document whose heading line starts with `prefix` (`## `), by heading line. */
export function sections(document: string, prefix: string): Map<string, string> {
  const out = new Map<string, string>()
  let fenced = false
  for (const line of document.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    if (!fenced && line.startsWith(prefix)) out.set(line, section(document, line))
  }
  return out
}

/** The cells of each row of the Markdown tables in `text` (header and separator rows left out). */
export function tableRows(text: string): string[][] {
  const rows: string[][] = []
  let inTable = false
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false
      continue
    }
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim())
    if (!inTable) {
      inTable = true // the header row
      continue
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue
    rows.push(cells)
  }
  return rows
}

/** The code spans of a piece of Markdown, without their backticks. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!)
}
