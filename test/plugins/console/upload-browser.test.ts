import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { makeMedia, uploadMedia, waitForStatus } from '../encoding/encoding.helpers.js'
import { xmlOf } from '../identity/permissions.fixtures.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible } from './console.browser-helpers.js'

/**
 * Uploads in the console's library, in headless Chromium: a real video (made by ffmpeg now) chosen in the page, its
 * progress, then its encoding seen until ready; a larger file whose connection is cut mid-way (its PATCH requests
 * dropped), then the page closed and the same file chosen again in a new one: it continues from the server's offset
 * and completes, byte for byte.
 */

/** The files of the editor's store: name and size. */
async function stored(client: DigestClient): Promise<{ name: string; size: number }[]> {
  const doc = xmlOf(await client.get('/search/files?sort=name'), 200)
  return list<XmlObject>((doc.files as XmlObject).file).map((f) => ({ name: text(f.name), size: Number(text(f.size)) }))
}

describe.skipIf(!HAS_CHROMIUM)('uploads in the console, in Chromium', { timeout: 120_000 }, () => {
  let app: TestApp
  let editor: DigestClient
  const chromium = new ConsoleChromium({ height: 900 })
  let workDir: string

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'mediactl-console-upload-'))
    app = await startApp()
    editor = await app.createUser({ username: 'editor' })
    await chromium.launch(app)
  }, 120_000)

  afterAll(async () => {
    await chromium.close(app)
    rmSync(workDir, { recursive: true, force: true })
  })

  it('uploads a real video chosen in the page, shows its progress, then its encoding until it is ready', async () => {
    const video = await makeMedia('video')
    const page = await chromium.signedIn('editor')
    await page.goto(`${app.url}/console/library`)
    await page
      .getByLabel('Choose files to upload')
      .setInputFiles({ name: 'lecture.mp4', mimeType: 'video/mp4', buffer: video })
    await page
      .getByRole('progressbar', { name: 'Upload of lecture.mp4' })
      .or(page.getByRole('progressbar', { name: 'Encoding of lecture.mp4' }))
      .first()
      .waitFor()
    await accessible(page, 'an upload under way')
    // The encoding is seen in the page, through one poll for all files, until the file is ready.
    await page.getByText('Uploaded and ready').waitFor({ timeout: 100_000 })
    expect(await page.getByRole('progressbar', { name: 'Encoding of lecture.mp4' }).getAttribute('value')).toBe('100')
    await accessible(page, 'an upload finished and encoded')
    await page.screenshot({ path: join(SHOTS, 'upload.png') })
    expect(await stored(editor)).toEqual([{ name: 'lecture.mp4', size: video.length }])
    // The list below shows it without a reload; "Upload more files" opens the chooser again.
    await page.getByRole('rowheader', { name: 'lecture.mp4' }).waitFor()
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Upload more files' }).click()
    expect((await chooser).isMultiple()).toBe(true)
    await page.close()
  })

  it('rides out a cut connection, then after the page is closed continues from the server’s offset', async () => {
    const big = randomBytes(20 * 1024 * 1024)
    // A file on disk: chosen twice, it is the same file to the browser (name, size, date).
    const file = join(workDir, 'big.bin')
    writeFileSync(file, big)
    const first = await chromium.signedIn('editor')
    // The network drops every PATCH after the first piece (8 MiB).
    let patches = 0
    await first.route('**/upload/tus/**', async (route) => {
      if (route.request().method() === 'PATCH' && ++patches > 1) return route.abort('connectionreset')
      return route.continue()
    })
    await first.goto(`${app.url}/console/library`)
    await first.getByLabel('Choose files to upload').setInputFiles(file)
    // tus-js-client retries the dropped request; the first piece stays on the server.
    await expect.poll(() => patches, { timeout: 30_000 }).toBeGreaterThan(2)
    const sentBefore = await first.getByRole('progressbar', { name: 'Upload of big.bin' }).getAttribute('value')
    expect(Number(sentBefore)).toBeGreaterThanOrEqual(39)
    expect(Number(sentBefore)).toBeLessThan(100)
    await first.close()

    // A new page of the same browser: the same file chosen again continues where the server stopped.
    const second = await chromium.page(first.context())
    const offsets: string[] = []
    second.on('response', (response) => {
      if (response.request().method() === 'HEAD') offsets.push(response.headers()['upload-offset'] ?? '')
    })
    await second.goto(`${app.url}/console/library`)
    await second.getByLabel('Choose files to upload').setInputFiles(file)
    await second
      .getByText(/^Continuing where it stopped/)
      .or(second.getByText(/^Uploaded; encoding/))
      .first()
      .waitFor()
    await second.getByText(/^Uploaded/).waitFor({ timeout: 60_000 })
    expect(offsets).toEqual([String(8 * 1024 * 1024)])
    expect((await stored(editor)).find((entry) => entry.name === 'big.bin')).toEqual({
      name: 'big.bin',
      size: big.length,
    })
    await accessible(second, 'a resumed upload')
    await second.close()
  })

  it('shows a failed encoding on the dashboard with its reason, and encodes it again', async () => {
    const video = await makeMedia('video')
    // A platform with room for the upload, not for its renditions: the encoding fails, saying why.
    const created = await app.client.post('/platforms', {
      form: { name: 'Tight', max_users: 0, max_space: video.length + 2000 },
    })
    const platform = text(xmlOf(created, 201).platform.slug)
    const tina = await app.createUser({ username: 'tina', platform })
    const slug = await uploadMedia(tina, video, 'too big.mp4')
    expect((await waitForStatus(tina, slug)).at(-1)!.status).toBe('failed')

    const page = await chromium.signedIn('tina')
    await page.goto(`${app.url}/console`)
    await page.getByRole('heading', { name: 'Encodings that failed' }).waitFor()
    await page.getByText(/^too big\.mp4: not enough space for the renditions \(\d+ bytes\)/).waitFor()
    await accessible(page, 'the dashboard with a failed encoding')
    await page.screenshot({ path: join(SHOTS, 'dashboard-failure.png'), fullPage: true })

    expect((await app.client.put(`/platform/${platform}`, { form: { max_space: 0 } })).status).toBe(200)
    await page.getByRole('button', { name: 'Encode too big.mp4 again' }).click()
    await page.getByRole('status').filter({ hasText: 'too big.mp4 is being encoded again' }).waitFor()
    await page.getByText('None: every encoding went through.').waitFor()
    expect((await waitForStatus(tina, slug)).at(-1)!.status).toBe('finished')
    await page.reload()
    await page.getByText('too big.mp4: Ready').waitFor()
    await accessible(page, 'the dashboard after the retry')
    await page.close()
  })

  it('left no script error or dialog on any page', async () => {
    // The dropped requests are the test's own doing.
    await chromium.problemsOnceClosed()
    expect(chromium.problemsBut(/ERR_CONNECTION_RESET/)).toEqual([])
  })
})
