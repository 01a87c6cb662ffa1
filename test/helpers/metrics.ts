import { expect } from 'vitest'

/** One sample of Prometheus's text format: `name{label="value",...} value`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** What a scrape of `GET /metrics` holds: every sample, and each metric's declared type (`# TYPE`). */
export interface Scrape {
  text: string
  samples: Sample[]
  types: Map<string, string>
}

/** Parses Prometheus's text format (as prom-client writes it: label values escaped, one sample a line). */
export function parseMetrics(text: string): Scrape {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type) types.set(type[1]!, type[2]!)
    if (!line || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return { text, samples, types }
}

/** `GET` a metrics URL (asserting 200) and parses it. */
export async function scrapeMetrics(url: string): Promise<Scrape> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return parseMetrics(await res.text())
}

/** The samples of `name` whose labels include `labels`. */
export function samplesOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  return scrape.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
}

/** The value of the one sample of `name` with exactly these labels (the `le` of buckets aside), or undefined. */
export function valueOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scrape.samples.find(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  return found?.value
}
