import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { XMLParser } from 'fast-xml-parser'
import { ROOT } from '../e2e/harness.js'
import type { DigestClient } from '../helpers/digest-client.js'
import { type XmlObject, list, text } from '../helpers/xml.js'
import { xmlOf } from '../helpers/answers.js'

/**
 * Answers of the original service, captured by one of its clients (see its README.md). They live
 * next to the repository, not in it, so a checkout without them skips the comparisons.
 */
export const FIXTURES = join(ROOT, '..', 'shared', 'fixtures', 'real-responses')

/** A fixture's text, or undefined when the folder (or the file) is absent. */
export function fixture(name: string): string | undefined {
  const path = join(FIXTURES, name)
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined
}

/** What kind of value a text or an attribute holds, which is what a client's parsing depends on. */
type ValueKind = 'empty' | 'integer' | 'decimal' | 'url' | 'string'

function kindOf(value: string): ValueKind {
  if (value === '') return 'empty'
  if (/^\d+$/.test(value)) return 'integer'
  if (/^\d+\.\d+$/.test(value)) return 'decimal'
  if (/^https?:\/\//.test(value)) return 'url'
  return 'string'
}

/**
 * The shape of an element, as old clients see it: its attributes (with the kind of their
 * values), how its content is written (CDATA, plain text, nothing, child elements) and the
 * distinct shapes of its children. Values themselves are left out: the suite checks those
 * against what the server must have produced.
 */
export interface Skeleton {
  name: string
  attributes: Record<string, ValueKind>
  content: 'cdata' | 'text' | 'empty' | 'elements'
  kind?: ValueKind
  children?: Skeleton[]
}

/** Keeps CDATA sections apart from plain text (the parser of test/helpers/xml.ts merges them). */
const ordered = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  cdataPropName: '#cdata',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
})

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> }

function skeletonOf(node: OrderedNode, options: SkeletonOptions): Skeleton {
  const name = Object.keys(node).find((key) => key !== ':@')!
  const attributes = Object.fromEntries(
    Object.entries(node[':@'] ?? {})
      .filter(([attribute]) => !options.attributes || options.attributes.includes(attribute))
      .map(([attribute, value]) => [attribute, kindOf(value)]),
  )
  const content = node[name] as OrderedNode[]
  if (content.length === 0) return { name, attributes, content: 'empty' }
  if (content.every((child) => '#cdata' in child)) {
    const value = content.map((child) => (child['#cdata'] as { '#text'?: string }[])[0]?.['#text'] ?? '').join('')
    return { name, attributes, content: 'cdata', kind: kindOf(value) }
  }
  if (content.length === 1 && '#text' in content[0]!) {
    return { name, attributes, content: 'text', kind: kindOf(String(content[0]['#text'])) }
  }
  const children: Skeleton[] = []
  for (const child of content) {
    const shape = skeletonOf(child, options)
    // Repeated children (three flavors) show once per distinct shape.
    if (!children.some((seen) => JSON.stringify(seen) === JSON.stringify(shape))) children.push(shape)
  }
  return { name, attributes, content: 'elements', children }
}

interface SkeletonOptions {
  attributes?: string[]
}

/** The skeleton of a document's root element. */
export function skeleton(xmlText: string): Skeleton {
  const nodes = ordered.parse(xmlText) as OrderedNode[]
  return skeletonOf(
    nodes.find((node) => !('?xml' in node))!,
    {},
  )
}

/**
 * `ours` cut down to what `like` (a fixture's skeleton) has: its attributes, its children by
 * name (in our order), so extra properties (clients must tolerate them) do not count while a
 * missing one, or one written differently, does. `opaque` names elements whose children are
 * not compared (custom metadata: the fixture's are not defined here).
 */
export function restrict(ours: Skeleton, like: Skeleton, opaque: string[] = []): Skeleton {
  const attributes = Object.fromEntries(
    Object.entries(ours.attributes).filter(([name]) => name in like.attributes),
  ) as Skeleton['attributes']
  const out: Skeleton = { name: ours.name, attributes, content: ours.content }
  if (ours.kind !== undefined) out.kind = ours.kind
  if (opaque.includes(ours.name) && ['elements', 'empty'].includes(ours.content)) return { ...out, content: 'elements' }
  if (ours.children) {
    const wanted = new Map((like.children ?? []).map((child) => [child.name, child]))
    out.children = ours.children
      .filter((child) => wanted.has(child.name))
      .map((child) => restrict(child, wanted.get(child.name)!, opaque))
      .filter((child, index, all) => all.findIndex((seen) => JSON.stringify(seen) === JSON.stringify(child)) === index)
  }
  return out
}

/** A fixture's skeleton, with the children of `opaque` elements left out as `restrict` does. */
export function opaqued(shape: Skeleton, opaque: string[]): Skeleton {
  if (opaque.includes(shape.name)) return { name: shape.name, attributes: shape.attributes, content: 'elements' }
  return shape.children ? { ...shape, children: shape.children.map((child) => opaqued(child, opaque)) } : shape
}

/** Whether `python3` can run the Python client: it needs the `requests` module. */
export function pythonWithRequests(): boolean {
  const probe = spawnSync('python3', ['-c', 'import requests'], { stdio: 'ignore', timeout: 10_000 })
  return probe.status === 0
}

export interface ProcessResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs `python3 <args>`. Proxy variables are dropped: `requests` honours them, and every
 * request of the suite must go to the server on 127.0.0.1.
 */
export function runPython(args: string[], timeoutMs = 30_000): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!/_proxy$/i.test(key)) env[key] = value
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** One page of a stream's list, as a client paging by `Range` sees it. */
export interface Page {
  range: string
  status: number
  contentRange: string | undefined
  slugs: string[]
  /** The raw body, for byte checks of the empty page. */
  body: string
  entries: XmlObject[]
}

/**
 * Lists a stream's resources as the clients of the original service did: pages of `size`
 * with `Range: entities=<n>-<n+size-1>`, until a page is shorter than `size`.
 */
export async function pageThrough(client: DigestClient, stream: string, size = 50): Promise<Page[]> {
  const pages: Page[] = []
  for (let start = 0; ; start += size) {
    const range = `entities=${start}-${start + size - 1}`
    const res = await client.get(`/stream/${stream}/resources`, { headers: { range } })
    const doc = xmlOf(res, 200)
    const entries = list<XmlObject>(doc.resources.resource)
    pages.push({
      range,
      status: res.status,
      contentRange: res.headers['content-range'] as string | undefined,
      slugs: entries.map((entry) => text(entry.slug)),
      body: res.body,
      entries,
    })
    if (entries.length < size) return pages
    // A client that never sees a short page would loop forever: bound it well above the test's lists.
    expect(pages.length).toBeLessThan(10)
  }
}
