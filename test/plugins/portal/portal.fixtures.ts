import { expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { type Response, rawRequest } from '../../helpers/digest-client.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, parseXml, text } from '../../helpers/xml.js'
import { makeMedia, uploadMedia, waitForStatus } from '../encoding/encoding.helpers.js'

/** What a browser sends when it navigates. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
export const HTML_TYPE = 'text/html; charset=utf-8'
export const XSS = '<script>alert(1)</script>'

/** The XML root of an answer, after checking its status. */
export function answer(res: { status: number; body: string }, status: number, root: string): XmlObject {
  expect(res.status, res.body.slice(0, 500)).toBe(status)
  return parseXml(res.body)[root] as XmlObject
}

/** A GET as a browser sends it, to `host` (default: the test server's own address) on the test server's socket. */
export function browse(
  app: TestApp,
  path: string,
  host?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const target = new URL(app.url)
  return rawRequest(app.url + path, 'GET', {
    headers: { accept: BROWSER_ACCEPT, host: host ? `${host}:${target.port}` : target.host, ...headers },
  })
}

/** Creates a media (201) and returns its slug. */
export async function createMedia(
  admin: DigestClient,
  name: string,
  domain: string,
  description = '',
  platform = 'default',
): Promise<string> {
  const media = answer(
    await admin.post(`/platform/${platform}/medias`, {
      form: { name, domain, description, contact_email: 'tv@portal.test', max_streams: 0 },
    }),
    201,
    'media',
  )
  return text(media.slug)
}

/** Creates a stream (201) and returns its slug. */
export async function createStream(
  admin: DigestClient,
  media: string,
  fields: { title: string; visibility?: string; parent_stream?: string; subtitle?: string; description?: string },
): Promise<string> {
  const stream = answer(
    await admin.post(`/media/${media}/streams`, { form: { visibility: 'visible', ...fields } }),
    201,
    'stream',
  )
  return text(stream.slug)
}

/** Publishes a file into a stream (201) and returns the resource's slug. */
export async function publish(
  admin: DigestClient,
  stream: string,
  file: string,
  fields: { title: string; visibility?: string; subtitle?: string; description?: string; published_at?: string },
): Promise<string> {
  const resource = answer(
    await admin.post(`/stream/${stream}/resources`, { form: { file, visibility: 'visible', ...fields } }),
    201,
    'resource',
  )
  return text(resource.slug)
}

/** Changes a media's web channel (`<media>-web`): theme, skin, is_online. */
export async function setWebChannel(admin: DigestClient, media: string, form: Record<string, string>): Promise<void> {
  const res = await admin.put(`/media/${media}/channel/${media}-web`, { form })
  expect(res.status, res.body).toBe(201)
}

const SRT = '1\n00:00:00,000 --> 00:00:01,500\nBonjour\n\n2\n00:00:01,600 --> 00:00:02,500\nFin\n'

/** One short video uploaded and encoded to `finished`, with French subtitles; its slug. */
export async function encodedVideo(admin: DigestClient, seconds = 3): Promise<string> {
  const file = await uploadMedia(admin, await makeMedia('video', { seconds }), 'portal.mp4')
  const samples = await waitForStatus(admin, file)
  expect(samples.at(-1)!.status, JSON.stringify(samples)).toBe('finished')
  const { body, headers } = multipartRequest([
    { name: 'language', value: 'fr' },
    { name: 'subtitle', filename: 'portal.srt', data: Buffer.from(SRT) },
  ])
  expect((await admin.post(`/file/${file}/subtitles`, { body, headers })).status).toBe(201)
  return file
}

/** The `href` values of the `<a>` elements of a page, in order. */
export function linksOf(body: string): string[] {
  return [...body.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'))
}
