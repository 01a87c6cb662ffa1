import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { makeMedia, startEncodingApp, uploadEncoded, uploadMedia } from '../encoding/encoding.helpers.js'
import { makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible } from './console.browser-helpers.js'

/**
 * One file's page in headless Chromium, on a real video made by ffmpeg and encoded: its facts, the player playing its
 * flavor (through media-token URLs, decision 0260), rename, typed metadata, thumbnail, subtitles, logo insertion,
 * download, encode again and delete, each checked through the API; markup in names and values shown as text; a viewer
 * offered nothing their profile lacks (and the API refusing it); another user's file not found; French at 320 px;
 * the keyboard. axe on every state reached.
 */

const HOSTILE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>.mp4`
const SRT = '1\n00:00:00,000 --> 00:00:01,500\nBonjour <b>à tous</b>\n'

/** What the test reads of a `<video>` (the test's types have no DOM). */
interface MediaElement {
  muted: boolean
  currentTime: number
  readyState: number
  play(): Promise<void>
}

async function info(client: DigestClient, slug: string): Promise<XmlObject> {
  return xmlOf(await client.get(`/file/${slug}`), 200).file as XmlObject
}

async function selectedSnapshot(client: DigestClient, slug: string): Promise<string | undefined> {
  const doc = parseXml((await client.get(`/file/${slug}/snapshots`)).body).snapshots as XmlObject
  return list<XmlObject>(doc.snapshot).find((snapshot) => snapshot['@selected'] === 'true')?.['@id'] as string
}

describe.skipIf(!HAS_CHROMIUM)("a file's page in Chromium", { timeout: 120_000 }, () => {
  let app: TestApp
  let editor: DigestClient
  let video: Buffer
  let lecture: string
  let picture: Buffer
  const chromium = new ConsoleChromium({ height: 900 })

  beforeAll(async () => {
    app = await startEncodingApp()
    editor = await app.createUser({ username: 'editor' })
    for (const [name, type, extra] of [
      ['Level', 'choice', { default_value: 'intro, advanced' }],
      ['Episode', 'integer', {}],
      ['Recorded', 'date', {}],
      ['Summary', 'longvarchar', {}],
      ['Captioned', 'boolean', {}],
    ] as const) {
      const form = { name, type, file_type: 'video', ...extra }
      expect((await app.client.post('/platform/default/metadata', { form })).status).toBe(201)
    }
    video = await makeMedia('video', { seconds: 3 })
    picture = await makeMedia('png', { size: '64x64' })
    ;[lecture] = await uploadEncoded(editor, [video, 'lecture.mp4'], [picture, 'logo.png'])
    await chromium.launch(app)
  }, 120_000)

  afterAll(async () => {
    const problems = await chromium.problemsOnceClosed()
    await chromium.close(app)
    expect(problems).toEqual([])
  })

  /**
   * Refusals the test provoked: the browser logs each failed request as an error, which is expected here. Called once
   * the page is closed (no request of it is still coming).
   */
  function provoked(status: number): void {
    const seen = (problem: string) => problem.includes(`status of ${status}`)
    const { problems } = chromium
    expect(problems.some(seen), `a logged ${status}`).toBe(true)
    problems.splice(0, problems.length, ...problems.filter((problem) => !seen(problem)))
  }

  it('opens from the library: the facts, and the player plays the encoded video', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/library`)
    await page.getByRole('link', { name: 'lecture.mp4' }).click()
    await page.getByRole('heading', { name: 'lecture.mp4', level: 2 }).waitFor()
    expect(new URL(page.url()).searchParams.get('slug')).toBe(lecture)
    await page.getByText('Ready').waitFor()
    await page.getByText('0:03').waitFor()
    await page.getByText('320 × 240 pixels').waitFor()
    const player = page.getByLabel('Video: lecture.mp4')
    // The flavor comes through its media-token URL: the browser sends no CSRF header for it.
    expect(await player.locator('source').first().getAttribute('src')).toMatch(
      /\/flavor\/video\/240p\.mp4\?v=\d+&token=/,
    )
    // Muted, as browsers let a page start sound only after a gesture; then it plays: time passes, frames are there.
    await player.evaluate((element: MediaElement) => {
      element.muted = true
      return element.play()
    })
    await expect
      .poll(() => player.evaluate((element: MediaElement) => element.currentTime > 0 && element.readyState >= 2))
      .toBe(true)
    await accessible(page, 'the file page')
    await page.screenshot({ path: join(SHOTS, 'file.png'), fullPage: false })

    // The original, downloaded whole.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the original' }).click(),
    ])
    expect(readFileSync((await download.path())!).equals(video)).toBe(true)
    await page.close()
  })

  it('renames with the keyboard and saves typed metadata; markup shown as text', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${lecture}`)
    const name = page.getByRole('textbox', { name: 'Name' })
    await name.focus()
    await page.keyboard.press('Control+A')
    await page.keyboard.type(HOSTILE)
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'Renamed' }).waitFor()
    expect(text((await info(editor, lecture)).name)).toBe(HOSTILE)
    await page.getByRole('heading', { name: HOSTILE, level: 2 }).waitFor()
    expect(await page.evaluate('window.__pwned')).toBeUndefined()

    await page.getByRole('combobox', { name: 'Level' }).selectOption('advanced')
    await page.getByRole('spinbutton', { name: 'Episode' }).fill('12')
    await page.getByLabel('Recorded').fill('2026-11-02')
    await page.getByRole('textbox', { name: 'Summary' }).fill(`About ]]> and <script>x</script>`)
    await page.getByRole('combobox', { name: 'Captioned' }).selectOption({ label: 'Yes' })
    await page.getByRole('button', { name: 'Save the metadata' }).click()
    await page.getByRole('status').filter({ hasText: 'The metadata are saved.' }).waitFor()
    const metadata = (await info(editor, lecture)).metadata as XmlObject
    expect([
      text(metadata.level),
      text(metadata.episode),
      text(metadata.recorded),
      text(metadata.summary),
      text(metadata.captioned),
    ]).toEqual(['advanced', '12', '2026-11-02', 'About ]]> and <script>x</script>', '1'])
    await accessible(page, 'the file page after saving its metadata')

    // A value the API refuses is said with its reason.
    await page.getByRole('spinbutton', { name: 'Episode' }).fill('99999999999')
    await page.getByRole('button', { name: 'Save the metadata' }).click()
    await page.getByRole('alert').filter({ hasText: 'metadata[Episode]' }).waitFor()
    await accessible(page, 'a refused metadata value')
    await page.close()
    provoked(412)
  })

  it('chooses the thumbnail among the snapshots, then uploads a picture instead', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${lecture}`)
    await page.getByRole('radio', { name: 'Snapshot 3' }).check()
    await page.getByRole('button', { name: 'Use this snapshot' }).click()
    await page.getByRole('status').filter({ hasText: 'The thumbnail is changed.' }).waitFor()
    expect(await selectedSnapshot(editor, lecture)).toBe('3')

    await page
      .getByLabel('Or a picture of yours')
      .setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: picture })
    await page.getByRole('button', { name: 'Upload as the thumbnail' }).click()
    await page.getByRole('status').filter({ hasText: 'Your picture is the thumbnail.' }).waitFor()
    expect(await selectedSnapshot(editor, lecture)).toBe('custom')
    await page.getByRole('radio', { name: 'Your picture' }).waitFor()
    await accessible(page, 'the thumbnail chosen')
    await page.close()
  })

  it('adds subtitles in a language, shown in the player, then deletes them', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${lecture}`)
    await page.getByText('No subtitles yet.').waitFor()
    await page.getByRole('textbox', { name: 'Language of the subtitles' }).fill('fr')
    await page
      .getByLabel('Subtitle file (SRT or WebVTT)')
      .setInputFiles({ name: 'talk.fr.srt', mimeType: 'application/x-subrip', buffer: Buffer.from(SRT) })
    await page.getByRole('button', { name: 'Add the subtitles' }).click()
    await page.getByRole('status').filter({ hasText: 'The subtitles are added.' }).waitFor()
    const subtitles = list<XmlObject>(((await info(editor, lecture)).subtitles as XmlObject).subtitle)
    expect(subtitles.map((subtitle) => subtitle['@language'])).toEqual(['fr'])
    await page.getByRole('link', { name: 'Subtitles in French (fr) (WebVTT)' }).waitFor()
    expect(await page.locator('video track').getAttribute('srclang')).toBe('fr')
    await accessible(page, 'the file page with subtitles')

    await page.getByRole('button', { name: 'Delete the subtitles in French (fr)…' }).click()
    await page.getByRole('button', { name: 'Delete the subtitles in French (fr)', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'The subtitles in fr are deleted.' }).waitFor()
    expect(((await info(editor, lecture)).subtitles as XmlObject).subtitle).toBeUndefined()
    await page.close()
  })

  it('inserts a logo from the library into a new video', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${lecture}`)
    await page.getByRole('combobox', { name: 'Logo (a picture of your library)' }).selectOption({ label: 'logo.png' })
    await page.getByRole('spinbutton', { name: 'Width (%)' }).fill('12')
    await page.getByRole('textbox', { name: 'Name of the new video' }).fill('lecture with logo')
    await page.getByRole('button', { name: 'Make the video with the logo' }).click()
    await page.getByRole('status').filter({ hasText: 'The new video is being made.' }).waitFor()
    const href = await page.getByRole('link', { name: 'Open "lecture with logo"' }).getAttribute('href')
    const made = new URL(href!, app.url).searchParams.get('slug')!
    expect(text((await info(editor, made)).name)).toBe('lecture with logo')
    await accessible(page, 'a logo insertion under way')
    await page.goto(`${app.url}${new URL(href!, app.url).pathname}?slug=${made}`)
    await page.getByRole('heading', { name: 'lecture with logo', level: 2 }).waitFor()
    // Seen live until its encoding ends (the page polls the status).
    await page.getByText('Ready').waitFor({ timeout: 90_000 })
    await page.close()
  })

  it('encodes again, seen live, then deletes after a confirmation and goes back to the library', async () => {
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${lecture}`)
    await page.getByRole('button', { name: 'Encode again' }).click()
    await page.getByRole('status').filter({ hasText: 'The file is being encoded again.' }).waitFor()
    await page.getByRole('progressbar').waitFor()
    await accessible(page, 'a file being encoded')
    await page.getByText('Ready').waitFor({ timeout: 90_000 })
    expect(text((await info(editor, lecture)).encoding_status)).toBe('finished')

    await page.getByRole('button', { name: 'Delete the file…' }).click()
    await page.getByRole('group').filter({ hasText: 'This cannot be undone.' }).waitFor()
    await accessible(page, 'the delete confirmation')
    await page.getByRole('button', { name: 'Delete it' }).click()
    await page.waitForURL((url) => url.pathname === '/console/library')
    expect((await editor.get(`/file/${lecture}`)).status).toBe(404)
    await page.close()
  })

  it("another user's file is not found; an uploader is offered no change, which the API refuses anyway", async () => {
    // May upload (file.create), not change nor delete (no file.edit, no file.delete).
    const viewer = await userWithProfile(app, 'uploader', await makeProfile(app, ['file.create']))
    const [hers] = await uploadEncoded(viewer, [picture, 'hers.png'])

    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/file?slug=${hers}`)
    await page.getByRole('alert').filter({ hasText: 'There is no such file in your library' }).waitFor()
    await accessible(page, 'a file not found')
    // Loading, held until axe has seen it; then an API failure: said, with a way to try again.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const renditions = (url: URL) => url.pathname.endsWith('/renditions')
    await page.route(renditions, async (route) => {
      await held
      await route.fulfill({ status: 503, body: '' })
    })
    await page.goto(`${app.url}/console/file?slug=${await uploadMedia(editor, picture, 'mine.png')}`)
    await page.locator('#app').getByRole('status').filter({ hasText: 'Loading…' }).waitFor()
    await accessible(page, 'a file page loading')
    release()
    await page.getByRole('button', { name: 'Try again' }).waitFor()
    await accessible(page, 'a file page that could not load')
    await page.unroute(renditions)
    await page.getByRole('button', { name: 'Try again' }).click()
    await page.getByRole('heading', { name: 'mine.png', level: 2 }).waitFor()
    await page.close()
    provoked(404)
    provoked(503)

    const seen = await chromium.signedIn('uploader')
    await seen.goto(`${app.url}/console/file?slug=${hers}`)
    await seen.getByRole('img', { name: 'The picture hers.png' }).waitFor()
    for (const name of ['Rename', 'Encode again', 'Delete the file…', 'Use this snapshot', 'Add the subtitles']) {
      expect(await seen.getByRole('button', { name }).count(), name).toBe(0)
    }
    expect(await seen.getByRole('textbox', { name: 'Name' }).count()).toBe(0)
    // Without platform.view the definitions are not theirs to read (the API answers 404): said, not fatal.
    await seen.getByText('Your profile may not read the metadata fields of your platform.').waitFor()
    await accessible(seen, "an uploader's file page")
    await seen.close()
    provoked(404)
    expect((await viewer.put(`/file/${hers}`, { form: { name: 'renamed' } })).status).toBe(403)
    expect((await viewer.delete(`/file/${hers}`)).status).toBe(403)
  })

  it('in French, 320 px wide', async () => {
    const [slug] = await uploadEncoded(editor, [video, 'cours.mp4'])
    const page = await chromium.signedIn('editor', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/file?slug=${slug}`)
    await page.getByRole('heading', { name: 'Aperçu' }).waitFor()
    await page.getByText('Prêt').waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the French file page at 320 px')
    await page.screenshot({ path: join(SHOTS, 'file-fr-320.png'), fullPage: false })
    await page.close()
  })
})
