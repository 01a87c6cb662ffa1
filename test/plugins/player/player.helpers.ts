import { expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { type Response, rawRequest } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { makeMedia, uploadMedia, waitForStatus } from '../encoding/encoding.helpers.js'
import { createMedia, createStream, published } from '../resources/resources.helpers.js'

/** French subtitles covering the whole 3 s video: a cue is active at any time of the playback. */
export const SRT = '1\n00:00:00,000 --> 00:00:02,000\nBonjour tout le monde\n\n2\n00:00:02,000 --> 00:00:09,000\nFin\n'

/** A title that would run as a script if it were not escaped. */
export const EVIL_TITLE = '<script>alert(1)</script>'

/** What a browser sends when it navigates. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

/** The resources of one encoded video, published several ways, and a widget of the visible one. */
export interface Published {
  media: string
  file: string
  /** Visible, in a visible stream. */
  visible: string
  /** Hidden (visible stream). */
  hidden: string
  /** Draft (visible stream). */
  draft: string
  /** Visible, in a hidden stream: not public either. */
  inHiddenStream: string
  /** Visible, titled `EVIL_TITLE`, with HTML in its description too. */
  evil: string
  /** Visible, for counting views. */
  counted: string
  /** A widget of `visible` with the Dark theme and the Autoplay muted behavior, 640x360. */
  widget: string
  /** The platform's themes and behaviors by name. */
  themes: Record<string, string>
  behaviors: Record<string, string>
}

/** The slugs of a platform's themes or behaviors, by name. */
async function playerSlugs(app: TestApp, kind: 'player_theme' | 'player_behavior'): Promise<Record<string, string>> {
  const doc = xmlOf(await app.client.get(`/platform/default/${kind}`), 200)
  const entries = list<XmlObject>(doc[`${kind}s`][kind])
  return Object.fromEntries(entries.map((e) => [text(e.name), text(e.slug)]))
}

/**
 * One 3 s video with French subtitles (SRT), encoded once, published into a visible stream
 * as visible, hidden, draft, an HTML title, and a resource for views; once more into a hidden
 * stream; a widget of the visible one in the Dark theme, Autoplay muted.
 */
export async function publishVideo(app: TestApp): Promise<Published> {
  const admin = app.client
  const file = await uploadMedia(admin, await makeMedia('video', { seconds: 3 }), 'lecture.mp4')
  // A bound of failure only: beside the Node legs in CI (two cores, three test processes, ffmpeg in each), this
  // encoding took over a minute.
  const samples = await waitForStatus(admin, file, ['finished', 'failed'], 150_000)
  expect(samples.at(-1)!.status, JSON.stringify(samples)).toBe('finished')
  const { body, headers } = multipartRequest([
    { name: 'language', value: 'fr' },
    { name: 'subtitle', filename: 'lecture.srt', data: Buffer.from(SRT) },
  ])
  expect((await admin.post(`/file/${file}/subtitles`, { body, headers })).status).toBe(201)

  const media = await createMedia(admin, 'Campus TV')
  const stream = await createStream(admin, media, 'Lectures')
  const hiddenStream = await createStream(admin, media, 'Backstage', { visibility: 'hidden' })
  const publish = (title: string, visibility: string, into = stream, description = '') =>
    published(admin, into, { file, title, visibility, description })
  const themes = await playerSlugs(app, 'player_theme')
  const behaviors = await playerSlugs(app, 'player_behavior')
  const visible = await publish('Lecture 1', 'visible')
  const widgetRes = await admin.post(`/resource/${visible}/widgets`, {
    form: {
      name: 'Course page',
      size: '640x360',
      player_theme: themes.Dark!,
      player_behavior: behaviors['Autoplay muted']!,
    },
  })
  return {
    media,
    file,
    visible,
    hidden: await publish('Lecture 2', 'hidden'),
    draft: await publish('Lecture 3', 'draft'),
    inHiddenStream: await publish('Lecture 4', 'visible', hiddenStream),
    evil: await publish(EVIL_TITLE, 'visible', stream, '<img src=x onerror=alert(2)> & "quotes"'),
    counted: await publish('Counted', 'visible'),
    widget: text(xmlOf(widgetRes, 201).widget.slug),
    themes,
    behaviors,
  }
}

/** The resource's info as the administrator reads it (`?with-token=1` when asked). */
export async function resourceInfo(app: TestApp, slug: string, withToken = false): Promise<XmlObject> {
  return xmlOf(await app.client.get(`/resource/${slug}${withToken ? '?with-token=1' : ''}`), 200).resource as XmlObject
}

/** The `views` of a resource. */
export async function viewsOf(app: TestApp, slug: string): Promise<number> {
  return Number(text((await resourceInfo(app, slug)).views))
}

/** The URL of the default player in a resource's info (with its token when read with-token). */
export async function playerUrl(app: TestApp, slug: string, withToken = false): Promise<string> {
  const [player] = list<XmlObject>((await resourceInfo(app, slug, withToken)).players.player)
  return text(player)
}

/** A GET as a browser navigating there (no credentials). */
export const browse = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  rawRequest(url, 'GET', { headers: { accept: BROWSER_ACCEPT, ...headers } })

/** Checks an HTML error page: its status, type and the status it shows. */
export function expectErrorPage(res: Response, status: number): void {
  expect(res.status, res.body.slice(0, 300)).toBe(status)
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(res.body).toContain(`data-status="${status}"`)
}

/** The directives of a Content-Security-Policy header, by name. */
export function cspOf(res: Response): Record<string, string> {
  const header = String(res.headers['content-security-policy'] ?? '')
  return Object.fromEntries(
    header
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const space = part.indexOf(' ')
        return space === -1 ? [part, ''] : [part.slice(0, space), part.slice(space + 1)]
      }),
  )
}

/** The settings JSON of a player page. */
export function configOf(body: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="player-config">([^<]*)<\/script>/.exec(body)
  expect(match, body.slice(0, 500)).not.toBeNull()
  return JSON.parse(match![1]!) as Record<string, unknown>
}
