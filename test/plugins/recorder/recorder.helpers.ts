import { expect } from 'vitest'
import { UserEntity } from '../../../plugins/identity/index.js'
import { RecorderCodeEntity } from '../../../plugins/recorder/index.js'
import { codeHash } from '../../../plugins/recorder/recorder-code.queries.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { xmlOf } from '../../helpers/answers.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'

export const WIDGET = '/extension/widget/recorder'
/** What every delivery needs. */
export const RECORDER_PROFILE = ['video_recorder.use', 'file.create']

/** The snippet of a widget answer, with the code (the `/recorder/<code>` identifier) it carries. */
export interface Delivered {
  code: string
  /** The URL-decoded HTML. */
  html: string
}

/** Checks a widget answer whole and returns its code. */
export function expectWidget(app: TestApp, res: Response): Delivered {
  const doc = xmlOf(res, 200)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['widget'])
  const widget = doc.widget as XmlObject
  expect(Object.keys(widget).sort()).toEqual(['@href', 'code'])
  expect(widget['@href']).toBe(`${app.url}${WIDGET}`)
  expect(res.headers['cache-control']).toBe('no-store')
  const encoded = text(widget.code)
  // URL-encoded (encodeURIComponent), in CDATA.
  expect(res.body).toContain(`<code><![CDATA[${encoded}]]></code>`)
  expect(encoded).toMatch(/^[A-Za-z0-9%._~*'()!-]+$/)
  const html = decodeURIComponent(encoded)
  expect(encodeURIComponent(html)).toBe(encoded)
  const match =
    /^<iframe src="([^"]+)" width="640" height="480" allow="camera; microphone" frameborder="0"><\/iframe>$/.exec(html)
  expect(match, html).not.toBeNull()
  const src = match![1]!
  expect(src.startsWith(`${app.url}/recorder/`)).toBe(true)
  const code = src.slice(`${app.url}/recorder/`.length)
  expect(code).toMatch(/^[A-Za-z0-9]{32}$/)
  return { code, html }
}

/** Asks for a widget (asserting 200) and returns its code. */
export async function deliver(app: TestApp, client: DigestClient): Promise<string> {
  return expectWidget(app, await client.get(WIDGET)).code
}

/** The path that spends a code for upload links. */
export const uploadLinksPath = (code: string): string => `${WIDGET}/${code}/upload_links`

/** Checks a `links` answer (as `POST /files/upload_links` gives) and returns its json link. */
export function expectUploadLinks(app: TestApp, res: Response, code: string): { html: string; json: string } {
  const doc = xmlOf(res, 200)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['links'])
  expect(Object.keys(doc.links).sort()).toEqual(['@href', 'link'])
  expect(doc.links['@href']).toBe(`${app.url}${uploadLinksPath(code)}`)
  expect(res.headers['cache-control']).toBe('no-store')
  const links = list<XmlObject>(doc.links.link)
  expect(links.map((l) => Object.keys(l).sort())).toEqual([
    ['@href', '@rel'],
    ['@href', '@rel'],
  ])
  expect(links.map((l) => l['@rel'])).toEqual(['html', 'json'])
  const [html, json] = links.map((l) => String(l['@href']))
  expect(html).toMatch(new RegExp(`^${app.url.replace(/[.:/]/g, '\\$&')}/upload/html\\?token=[\\w.%-]+$`))
  expect(json).toBe(html!.replace('/upload/html?', '/upload/json?'))
  return { html: html!, json: json! }
}

/** The id of a user, by username. */
export async function userId(app: TestApp, username: string): Promise<number> {
  return (await app.kernel.em().findOneOrFail(UserEntity, { username })).id
}

/** How many recorder codes are stored (of one user, by id, or all). */
export function countCodes(app: TestApp, user?: number): Promise<number> {
  return app.kernel.em().count(RecorderCodeEntity, user === undefined ? {} : { user })
}

/** Moves the expiry of a stored code. */
export async function expireAt(app: TestApp, code: string, date: Date): Promise<void> {
  const changed = await app.kernel
    .em()
    .nativeUpdate(RecorderCodeEntity, { codeHash: codeHash(code) }, { expiresAt: date })
  expect(changed).toBe(1)
}
