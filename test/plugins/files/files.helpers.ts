import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { parse } from 'yaml'
import '../../../plugins/files/index.js'
import { FILE_INFO, type FileView, fileQueries } from '../../../plugins/files/index.js'
import { type FilesConfig, filesConfigSchema } from '../../../plugins/files/files.config.js'
import type { FilesDeps } from '../../../plugins/files/files.deps.js'
import { UploadLinks } from '../../../plugins/files/upload-token.js'
import { UploadMetrics } from '../../../plugins/files/upload.metrics.js'
import { MetricsRegistry } from '../../../src/kernel/metrics/metrics-registry.js'
import { type Kernel, type PluginDefinition, definePlugin, tokensWith } from '../../../src/kernel/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type Part, multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { xmlOf } from '../identity/permissions.fixtures.js'

/** Contents the type sniffer recognises (API-DECISIONS: type by content, not by name). */
export const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(200)])
export const PDF = Buffer.from(
  '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n',
  'latin1',
)
export const MP4 = Buffer.concat([
  Buffer.from('00000018', 'hex'),
  Buffer.from('ftypmp42', 'latin1'),
  Buffer.from('00000000', 'hex'),
  Buffer.from('mp42isom', 'latin1'),
  randomBytes(300),
])
/** Bytes that look like nothing: a NUL (so not text) and no known signature. */
export const other = (size: number): Buffer =>
  Buffer.concat([Buffer.from([0, 1, 2, 3]), randomBytes(Math.max(0, size - 4))]).subarray(0, size)

/** One file part (field `path` unless told) and extra fields, as a multipart request. */
export function fileRequest(
  data: Buffer,
  options: { filename?: string; field?: string; fields?: Record<string, string>; fieldsAfter?: boolean } = {},
): { body: Buffer; headers: Record<string, string> } {
  const fields: Part[] = Object.entries(options.fields ?? {}).map(([name, value]) => ({ name, value }))
  const file: Part = { name: options.field ?? 'path', filename: options.filename ?? 'file.bin', data }
  return multipartRequest(options.fieldsAfter ? [file, ...fields] : [...fields, file])
}

/** `POST /files` with one file part. */
export function upload(
  client: DigestClient,
  data: Buffer,
  options: Parameters<typeof fileRequest>[1] = {},
): Promise<Response> {
  return client.post('/files', fileRequest(data, options))
}

/** Uploads a file (asserting 200) and returns the parsed `file` element. */
export async function uploaded(
  client: DigestClient,
  data: Buffer,
  options: Parameters<typeof fileRequest>[1] = {},
): Promise<XmlObject> {
  return xmlOf(await upload(client, data, options), 200).file as XmlObject
}

/** Creates a directory (in `parent`, or the root) and returns its slug (asserting 201). */
export async function makeDirectory(client: DigestClient, name: string, parent?: string): Promise<string> {
  const res = parent
    ? await client.post(`/files/${parent}`, { form: { name } })
    : await client.post('/files', { form: { name } })
  return text(xmlOf(res, 201).directory.slug)
}

/** Every key stored under `files/`, sorted. */
export async function storedKeys(app: TestApp): Promise<string[]> {
  const keys: string[] = []
  for await (const key of app.kernel.services.ports.get('storage').list('files/')) keys.push(key)
  return keys.sort()
}

/** The bytes stored under a key. */
export async function storedBytes(app: TestApp, key: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of await app.kernel.services.ports.get('storage').read(key)) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Temporary files of writes in flight (storage-fs). */
export const tempFiles = (app: TestApp): string[] => {
  try {
    return readdirSync(join(app.dataDir, 'storage', '~tmp'))
  } catch {
    return []
  }
}

/** The file row behind a slug (through the plugin's own query). */
export async function fileRow(app: TestApp, slug: string): Promise<FileView | undefined> {
  return fileQueries.fileBySlug(app.kernel.services.reader, slug)
}

/** `used_space` of a platform info, as the administrator sees it. */
export async function usedSpace(app: TestApp, platform = 'default'): Promise<number> {
  return Number(text(xmlOf(await app.client.get(`/platform/${platform}`), 200).platform.used_space))
}

/** Rows of a table (`files`, `directories`, `pending_uploads`, `storage_trash`). */
export async function countRows(app: TestApp, table: string): Promise<number> {
  const rows = await app.kernel.em().execute<{ n: number | string }[]>(`select count(*) as n from ${table}`)
  return Number(rows[0]!.n)
}

/**
 * A file event as recorded: its name, the slugs it carried, and whether it came inside a
 * transaction (`file.uploaded` comes in the transaction that records the bytes: the outbox).
 */
export interface SeenEvent {
  event: 'file.uploaded' | 'file.deleted'
  slugs: string[]
  files: (FileView | { id: number; slug: string })[]
  inTransaction: boolean
}

/** A plugin recording `file.uploaded` and `file.deleted`, standing in for the media pipeline and publishing. */
export function fileEventRecorder(): { plugin: PluginDefinition; events: SeenEvent[] } {
  const events: SeenEvent[] = []
  const plugin = definePlugin({
    name: `file-events-${randomBytes(3).toString('hex')}`,
    dependsOn: ['files'],
    register(ctx) {
      ctx.on('file.uploaded', ({ em, file }) => {
        events.push({ event: 'file.uploaded', slugs: [file.slug], files: [file], inTransaction: em.isInTransaction() })
      })
      ctx.on('file.deleted', ({ em, files }) => {
        events.push({
          event: 'file.deleted',
          slugs: files.map((file) => file.slug),
          files,
          inTransaction: em.isInTransaction(),
        })
      })
    },
  })
  return { plugin, events }
}

/**
 * Configuration of the file store alone: the default plugins without the media pipeline,
 * whose jobs would move files on from `pending` (`fileEventRecorder` stands in for it).
 */
const DEFAULT_PLUGINS = (
  parse(readFileSync(join(import.meta.dirname, '../../../config/default.yaml'), 'utf8')) as { plugins: string[] }
).plugins

export const STORE_ONLY: Record<string, unknown> = {
  // Everything listed before the pipeline: what comes after it (subtitles, publishing) builds on it.
  plugins: DEFAULT_PLUGINS.slice(0, DEFAULT_PLUGINS.indexOf('encoding')),
}

/** The storage key layout: generated, never derived from names. */
export const SOURCE_KEY = /^files\/[0-9a-f]{24}\/source$/

/** Checks that a listing's or answer's element has exactly these keys (attributes included). */
export function expectKeys(node: XmlObject, keys: string[]): void {
  expect(Object.keys(node).sort()).toEqual([...keys].sort())
}

/** The storage keys of the pieces of every pending chunked upload, per upload. */
export async function pendingPieces(app: TestApp): Promise<string[][]> {
  const rows = await app.kernel.em().execute<{ pieces: unknown }[]>('select pieces from pending_uploads order by id')
  return rows.map((row) => (typeof row.pieces === 'string' ? JSON.parse(row.pieces) : row.pieces) as string[])
}

/**
 * What the files plugin's services get when it registers, made from a booted kernel (tests call
 * them directly); `config` instead of the kernel's `files` section. Its upload metrics count on a
 * registry of their own, never scraped.
 */
export function filesDeps(
  kernel: Kernel,
  config: FilesConfig = filesConfigSchema.parse(kernel.config.files ?? {}),
): FilesDeps {
  const { ports, secret, links, reader, log } = kernel.services
  return {
    config,
    storage: ports.get('storage'),
    resumableUploads: ports.has('resumableUploads') ? ports.get('resumableUploads') : undefined,
    locks: ports.get('locks'),
    emit: kernel.emit,
    reader,
    log,
    em: () => kernel.em(),
    uploadLinks: new UploadLinks(tokensWith(secret), links, config, ports.get('credentials')),
    info: kernel.exposed(FILE_INFO),
    metrics: new UploadMetrics(new MetricsRegistry().forPlugin('files')),
  }
}
