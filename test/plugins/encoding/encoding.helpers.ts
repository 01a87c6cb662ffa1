import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'vitest'
import encoderPlugin from '../../../plugins/encoder-ffmpeg/index.js'
import { CATALOG } from '../../../src/catalog.js'
import type { PluginDefinition } from '../../../src/kernel/index.js'
import { findMediaBinary } from '../../../src/shared/binaries.js'
import { type TestApp, type TestAppOptions, startApp } from '../../helpers/app.js'
import { DigestClient } from '../../helpers/digest-client.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { upload } from '../files/files.helpers.js'

const run = promisify(execFile)

/** Fast encoder settings: a two-rung ladder of small frames, ultrafast x264, short HLS segments. */
export const FAST_ENCODER = {
  threads: 1,
  video: {
    preset: 'ultrafast',
    ladder: [
      { name: '240p', width: 320, height: 240, crf: 32, audio_bitrate: 64 },
      { name: '120p', width: 160, height: 120, crf: 32, audio_bitrate: 64 },
    ],
  },
  audio: {
    flavors: [
      { name: 'aac', codec: 'aac', bitrate: 64 },
      { name: 'mp3', codec: 'mp3', bitrate: 64 },
    ],
  },
  hls: { segment_duration: 1 },
  thumbnail: { width: 160 },
  snapshots: { width: 160 },
  image: { max_size: 320 },
}

/**
 * The test app with the media pipeline: the encoder plugin (from the catalog once it is
 * there), fast encoder settings, one job at a time with short backoffs; the jobs run as
 * `serve` runs them (unless `jobs: false`).
 */
export async function startEncodingApp(options: TestAppOptions = {}): Promise<TestApp> {
  const inCatalog = CATALOG.names.includes('encoder-ffmpeg')
  const extra: PluginDefinition[] = inCatalog ? [] : [encoderPlugin as PluginDefinition]
  const config: Record<string, unknown> = {
    'encoder-ffmpeg': FAST_ENCODER,
    jobs: { concurrency: 1, max_attempts: 3, backoff: 0.2, time_limit: 600 },
    'queue-inline': { poll_interval: 0.1 },
    ...options.config,
  }
  return startApp({ ...options, config, plugins: [...extra, ...(options.plugins ?? [])] })
}

/** Runs the bundled (or configured) ffmpeg. */
async function ffmpeg(args: string[]): Promise<void> {
  await run(findMediaBinary('ffmpeg')!.path, ['-v', 'error', '-y', ...args])
}

type MediaKind = 'video' | 'audio' | 'png' | 'jpeg'
type MediaOptions = { seconds?: number; size?: string; faststart?: boolean }

/** What `makeMedia` made in this test process, by kind and options: the same request gets the same bytes. */
const made = new Map<string, Promise<Buffer>>()

/**
 * Media made at test time with ffmpeg's generators (`testsrc`, `sine`), once per test process for each kind and set of
 * options (ffmpeg's output is the same each time; every caller gets a copy of its own).
 */
export async function makeMedia(kind: MediaKind, options: MediaOptions = {}): Promise<Buffer> {
  const key = JSON.stringify([kind, options.seconds ?? 2, options.size ?? '320x240', options.faststart ?? true])
  let media = made.get(key)
  if (!media) {
    media = generateMedia(kind, options)
    made.set(key, media)
    media.catch(() => made.delete(key))
  }
  return Buffer.from(await media)
}

async function generateMedia(kind: MediaKind, options: MediaOptions): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-media-'))
  try {
    const seconds = options.seconds ?? 2
    const size = options.size ?? '320x240'
    let out: string
    if (kind === 'video') {
      out = join(dir, 'v.mp4')
      await ffmpeg([
        ...['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=15:duration=${seconds}`],
        ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
        // Without faststart the index (moov) comes last, as cameras write it.
        ...(options.faststart === false ? [] : ['-movflags', '+faststart']),
        out,
      ])
    } else if (kind === 'audio') {
      out = join(dir, 'a.m4a')
      await ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`, '-c:a', 'aac', out])
    } else {
      out = join(dir, kind === 'png' ? 'i.png' : 'i.jpg')
      await ffmpeg(['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=1`, '-frames:v', '1', out])
    }
    return readFileSync(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** What ffprobe says of some bytes (format and streams). */
export async function ffprobe(data: Buffer): Promise<{ format: XmlObject; streams: XmlObject[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-probe-'))
  try {
    const path = join(dir, 'input')
    writeFileSync(path, data)
    const { stdout } = await run(findMediaBinary('ffprobe')!.path, [
      ...['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    ])
    return JSON.parse(stdout) as { format: XmlObject; streams: XmlObject[] }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A binary answer. */
export interface BytesResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A GET through a real socket, the body kept as bytes (`path` relative to the base URL, with its query). */
export function getBytes(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<BytesResponse> {
  const target = new URL(path, baseUrl + '/')
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, method: 'GET', path: target.pathname + target.search, headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** A Digest GET of a user, the body kept as bytes. */
export async function digestBytes(
  client: DigestClient,
  path: string,
  headers: Record<string, string> = {},
): Promise<BytesResponse> {
  const binary = new DigestClient(client.baseUrl, client.username, client.apiKey)
  await binary.handshake()
  const target = new URL(path, client.baseUrl + '/')
  const uri = target.pathname + target.search
  return getBytes(client.baseUrl, uri, { ...headers, authorization: binary.authorization('GET', uri) })
}

/** An absolute media URL from an answer, as a path with its query (the test server's base URL removed). */
export const pathOf = (url: string): string => {
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

export const sha1 = (data: Buffer): string => createHash('sha1').update(data).digest('hex')

/** Uploads a file (asserting 200) and returns its slug. */
export async function uploadMedia(client: DigestClient, data: Buffer, filename: string): Promise<string> {
  const res = await upload(client, data, { filename })
  expect(res.status, res.body).toBe(200)
  return text(parseXml(res.body).file.slug)
}

/** A status poll: the status word and progress. */
export interface StatusSample {
  status: string
  progress: number
}

/**
 * Polls `GET /file/<slug>/status` until the status is one of `until` (asserting it gets
 * there within `timeoutMs`); every sample seen, in order.
 */
export async function waitForStatus(
  client: DigestClient,
  slug: string,
  until: readonly string[] = ['finished', 'failed'],
  timeoutMs = 60_000,
): Promise<StatusSample[]> {
  const samples: StatusSample[] = []
  await waitFor(
    async () => {
      const res = await client.get(`/file/${slug}/status`)
      expect(res.status, res.body).toBe(200)
      const file = parseXml(res.body).file as XmlObject
      const sample = { status: text(file.encoding_status), progress: Number(text(file.encoding_progress)) }
      samples.push(sample)
      return until.includes(sample.status)
    },
    {
      timeout: timeoutMs,
      interval: 40,
      message: () => `file ${slug} (still ${samples.at(-1)?.status}) to be ${until.join(' or ')}`,
    },
  )
  return samples
}

/**
 * Uploads each file (asserting 200), then waits until every one is encoded (or failed): their slugs, in order. The
 * encodings run side by side while the next files upload.
 */
export async function uploadEncoded<Files extends [data: Buffer, filename: string][]>(
  client: DigestClient,
  ...files: Files
): Promise<{ [K in keyof Files]: string }> {
  const slugs: string[] = []
  for (const [data, filename] of files) slugs.push(await uploadMedia(client, data, filename))
  for (const slug of slugs) await waitForStatus(client, slug)
  return slugs as { [K in keyof Files]: string }
}

/** File info as the owner sees it. */
export async function fileInfo(client: DigestClient, slug: string, query = ''): Promise<XmlObject> {
  const res = await client.get(`/file/${slug}${query}`)
  expect(res.status, res.body).toBe(200)
  return parseXml(res.body).file as XmlObject
}

/** The rendition rows of a file (kind, name, size, key), by kind then name. */
export async function renditionRows(
  app: TestApp,
  fileId: number,
): Promise<{ kind: string; name: string; size: number; storage_key: string; selected: boolean }[]> {
  const rows = await app.kernel
    .em()
    .execute<{ kind: string; name: string; size: number | string; storage_key: string; selected: unknown }[]>(
      'select kind, name, size, storage_key, selected from renditions where file_id = ? order by kind, name',
      [fileId],
    )
  return rows.map((row) => ({
    ...row,
    size: Number(row.size),
    selected: row.selected === true || Number(row.selected) === 1,
  }))
}

/** Checks an XML error answer: its status, and the messages of the fields given (when given). */
export function expectFailure(
  res: { status: number; body: string },
  status: number,
  fields?: Record<string, string | RegExp>,
): XmlObject {
  expect(res.status, res.body).toBe(status)
  const error = parseXml(res.body).error as XmlObject
  expect(text(error.status)).toBe(String(status))
  if (fields) {
    const sent = Object.fromEntries(list<XmlObject>(error.field).map((f) => [f['@name'] as string, text(f)]))
    expect(Object.keys(sent)).toEqual(Object.keys(fields))
    for (const [name, message] of Object.entries(fields)) expect(sent[name]).toMatch(message)
  }
  return error
}
