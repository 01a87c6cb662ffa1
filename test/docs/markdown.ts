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

/**
 * The anchor GitHub gives a heading: its text as rendered (code spans keep their text, links
 * their label, emphasis loses its markers), lowercased, every character but letters, digits,
 * `_`, `-` and spaces removed, spaces turned into hyphens.
 */
export function slugify(heading: string): string {
  const parts = heading.split(/(`+[^`]*`+)/)
  const text = parts
    .map((part, i) => {
      if (i % 2 === 1) return part.replace(/^`+\s?|\s?`+$/g, '')
      return part
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]+>/g, '')
        .replace(/\*+/g, '')
        .replace(/(?<!\w)_+|_+(?!\w)/g, '')
    })
    .join('')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** A document with its fenced code blocks blanked (same length and lines, so offsets stay true). */
function withoutFences(document: string): string {
  let fence: string | undefined
  return document
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
      if (fence === undefined && marker) {
        fence = marker
        return ' '.repeat(line.length)
      }
      if (fence !== undefined) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
          fence = undefined
        return ' '.repeat(line.length)
      }
      return line
    })
    .join('\n')
}

/**
 * The anchors a Markdown document offers, as GitHub makes them: one per heading (a repeated
 * heading gets `-1`, `-2`, ...), and the `id` or `name` of any HTML element.
 */
export function anchorsOf(document: string): Set<string> {
  const text = withoutFences(document)
  const anchors = new Set<string>()
  const counts = new Map<string, number>()
  for (const line of text.split('\n')) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slugify(heading)
    let slug = base
    for (let n = counts.get(base) ?? 0; anchors.has(slug); n++) {
      slug = `${base}-${n + 1}`
      counts.set(base, n + 1)
    }
    anchors.add(slug)
  }
  for (const match of text.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(match[1]!)
  return anchors
}

/** A link of a Markdown document: its target as written, and the line it is on (from 1). */
export interface MarkdownLink {
  target: string
  line: number
}

/**
 * The links of a Markdown document (`[x](target)`, `![x](target)`, `[x]: target`), outside
 * fenced code blocks and code spans. A label may run over several lines.
 */
export function linksOf(document: string): MarkdownLink[] {
  const text = withoutFences(document).replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '))
  const lineAt = (index: number): number => text.slice(0, index).split('\n').length
  const links: MarkdownLink[] = []
  for (const match of text.matchAll(
    /\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+("[^"]*"|'[^']*'))?\s*\)/g,
  )) {
    links.push({ target: match[1]!.replace(/^<|>$/g, ''), line: lineAt(match.index) })
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)/gm)) {
    links.push({ target: match[1]!.replace(/^<|>$/g, ''), line: lineAt(match.index) })
  }
  return links
}

/** What a link checker needs to know of the files: their text, or whether a path exists. */
export interface LinkTree {
  /** The text of a Markdown file, by path from the repository root (`docs/api/README.md`). */
  read(path: string): string
  /** Whether a file or folder exists, by path from the repository root. */
  exists(path: string): boolean
}

/**
 * The broken relative links of a Markdown file (`path` from the repository root): a target
 * that does not exist, or an anchor its Markdown target (or the file itself, for `#anchor`)
 * does not have. Links with a scheme (`https:`, `mailto:`) are not checked, nor anchors into
 * files that are not Markdown (`#L10` of a source file). One line per problem.
 */
export function brokenLinks(path: string, tree: LinkTree): string[] {
  const problems: string[] = []
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : ''
  const anchorCache = new Map<string, Set<string>>()
  const anchorsAt = (file: string): Set<string> => {
    let anchors = anchorCache.get(file)
    if (!anchors) anchorCache.set(file, (anchors = anchorsOf(tree.read(file))))
    return anchors
  }
  for (const { target, line } of linksOf(tree.read(path))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue
    const hash = target.indexOf('#')
    const filePart = decodeURI(hash === -1 ? target : target.slice(0, hash))
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
    let file = path
    if (filePart !== '') {
      file = normalize(filePart.startsWith('/') ? filePart.slice(1) : folder + filePart)
      if (file.startsWith('../') || !tree.exists(file)) {
        problems.push(`${path}:${line}: ${target}: no file ${file}`)
        continue
      }
    }
    if (anchor === undefined || !file.endsWith('.md')) continue
    if (!anchorsAt(file).has(anchor)) problems.push(`${path}:${line}: ${target}: no anchor #${anchor} in ${file}`)
  }
  return problems
}

/** A relative path with its `.` and `..` segments resolved (a leading `../` kept when it leaves the root). */
function normalize(path: string): string {
  const out: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '') continue
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop()
    else out.push(segment)
  }
  return out.join('/') + (path.endsWith('/') ? '/' : '')
}
