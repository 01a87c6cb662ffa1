import { randomUUID } from 'node:crypto'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Language, type MessageKey, message } from '../../../plugins/console/browser/messages/index.js'
import { SECTIONS } from '../../../plugins/console/console.pages.js'
import { TEST_PG_URL } from '../../helpers/database.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { makeMedia } from '../encoding/encoding.helpers.js'
import { uploaded } from '../files/files.helpers.js'
import { xmlOf } from '../identity/permissions.fixtures.js'
import { createMedia, createStream } from '../resources/resources.helpers.js'
import { HAS_CHROMIUM, accessible, launchChromium, watchedPage } from './console.browser-helpers.js'
import {
  type Hands,
  type Installation,
  activate,
  choose,
  fill,
  newInstallation,
  otherSite,
} from './journeys.helpers.js'

/**
 * The console's journeys (issue 33), each from a new installation made by `mediactl serve --init`, in headless
 * Chromium, on SQLite (the suite) and PostgreSQL (.ci/run's journeys step):
 * (a) the administrator's first hour: the printed link, a password, a real video uploaded through the page and seen
 *     encoded, a media site and a stream made, the video published, its iframe embed code copied and pasted into a
 *     page of another origin (127.0.0.2), where it plays;
 * (b) a Publisher of one platform publishes in their stream, sees nothing of another platform, is offered no user
 *     management;
 * (c) is upload-browser.test.ts's cut connection and reloaded page (a journey of its own there);
 * (d) journey (a) in French; (e) journey (a) with the keyboard only.
 * axe runs on every state the journeys reach.
 */

const PASSWORD = 'a sentence I will remember'
const database = TEST_PG_URL ? 'PostgreSQL' : 'SQLite'

describe.skipIf(!HAS_CHROMIUM)(`the console's journeys in Chromium (${database})`, { timeout: 240_000 }, () => {
  let browser: Browser
  let video: Buffer
  const problems: string[] = []

  beforeAll(async () => {
    ;[browser, video] = await Promise.all([launchChromium(), makeMedia('video', { seconds: 4, size: '320x240' })])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
  })

  /** A browser context of one person: their language, the clipboard granted for the appliance's origin. */
  async function personAt(installation: Installation, language: Language): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: language === 'fr' ? 'fr-FR' : 'en-GB',
    })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: installation.url })
    return context
  }

  /** Opens a sign-in link and chooses the password: the dashboard follows. */
  async function choosePassword(page: Page, link: string, language: Language, hands: Hands): Promise<void> {
    const t = (key: MessageKey) => message(language, key)
    await page.goto(link)
    await accessible(page, `${language}: the link page`)
    await fill(page, page.getByLabel(t('link.password'), { exact: true }), PASSWORD, hands)
    await fill(page, page.getByLabel(t('link.confirm')), PASSWORD, hands)
    await activate(page, page.getByRole('button', { name: t('link.submit') }), hands)
    await page.getByRole('heading', { name: t('dashboard.title'), exact: true }).waitFor()
    await accessible(page, `${language}: the dashboard of a new installation`)
  }

  /** Uploads the video through the library's page and waits until the page says it is encoded. */
  async function uploadVideo(page: Page, language: Language, hands: Hands, name: string): Promise<void> {
    const t = (key: MessageKey, values?: Record<string, string>) => message(language, key, values)
    await activate(page, page.getByRole('link', { name: t('nav.library'), exact: true }), hands)
    await page.getByRole('heading', { name: t('library.title'), exact: true }).waitFor()
    const file = { name, mimeType: 'video/mp4', buffer: video }
    if (hands === 'mouse') {
      await page.getByLabel(t('upload.choose')).setInputFiles(file)
    } else {
      const chooser = page.waitForEvent('filechooser')
      await activate(page, page.getByLabel(t('upload.choose')), hands)
      await (await chooser).setFiles(file)
    }
    await page.getByRole('progressbar', { name: t('upload.progress.label', { name }) }).waitFor()
    await accessible(page, `${language}: an upload under way`)
    await page.getByText(t('upload.ready')).waitFor({ timeout: 120_000 })
    await accessible(page, `${language}: the upload encoded`)
  }

  /**
   * Makes a media site and a visible stream in the publishing section, publishes the uploaded file into it from the
   * library (visible: the embed plays for anyone), makes a widget of it and copies its iframe code: the clipboard's.
   */
  async function publishAndCopyEmbed(page: Page, language: Language, hands: Hands, file: string): Promise<string> {
    const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
    const title = file.replace(/\.[^.]+$/, '')
    const nav = page.getByRole('navigation', { name: t('nav.label') })
    await activate(page, nav.getByRole('link', { name: t('nav.publishing'), exact: true }), hands)
    const siteForm = page.getByRole('form', { name: t('publishing.site.new') })
    await fill(page, siteForm.getByRole('textbox', { name: t('publishing.site.name') }), 'Campus TV', hands)
    await fill(page, siteForm.getByRole('textbox', { name: t('publishing.site.domain') }), 'tv.example.org', hands)
    await fill(page, siteForm.getByRole('textbox', { name: t('publishing.site.contact') }), 'tv@example.org', hands)
    await accessible(page, `${language}: a media site being made`)
    await activate(page, siteForm.getByRole('button', { name: t('publishing.site.create') }), hands)
    await page.getByRole('heading', { name: t('publishing.site', { name: 'Campus TV' }) }).waitFor()

    const streamForm = page.getByRole('form', { name: t('publishing.stream.new') })
    await fill(page, streamForm.getByRole('textbox', { name: t('publishing.stream.title') }), 'Physics', hands)
    const visibility = streamForm.getByRole('combobox', { name: t('publishing.visibility') })
    await choose(page, visibility, t('publishing.visibility.visible'), hands)
    await activate(page, streamForm.getByRole('button', { name: t('publishing.stream.create') }), hands)
    await page.getByRole('link', { name: 'Physics', exact: true }).waitFor()
    await accessible(page, `${language}: a media site and its stream`)

    await activate(page, nav.getByRole('link', { name: t('nav.library'), exact: true }), hands)
    await activate(page, page.getByRole('checkbox', { name: t('library.select', { name: file }) }), hands, 'Space')
    await activate(page, page.getByRole('button', { name: t('library.publish') }), hands)
    await choose(page, page.getByRole('combobox', { name: t('publish.stream') }), 'Physics', hands)
    await choose(
      page,
      page.getByRole('combobox', { name: t('publish.visibility') }),
      t('publish.visibility.visible'),
      hands,
    )
    await accessible(page, `${language}: the publish form`)
    await activate(page, page.getByRole('button', { name: t('publish.submit', { count: 1 }) }), hands)
    await page
      .getByRole('status')
      .filter({ hasText: t('publish.done', { title }) })
      .waitFor()

    await activate(page, nav.getByRole('link', { name: t('nav.publishing'), exact: true }), hands)
    await activate(page, page.getByRole('link', { name: 'Campus TV', exact: true }), hands)
    await activate(page, page.getByRole('link', { name: 'Physics', exact: true }), hands)
    await activate(page, page.getByRole('link', { name: title, exact: true }), hands)
    await page.getByRole('heading', { name: t('publishing.resource', { title }) }).waitFor()
    const widgetForm = page.getByRole('form', { name: t('publishing.widget.new') })
    await fill(page, widgetForm.getByRole('textbox', { name: t('publishing.widget.name') }), 'Course page', hands)
    await activate(page, widgetForm.getByRole('button', { name: t('publishing.widget.create') }), hands)
    await activate(
      page,
      page.getByRole('button', { name: t('publishing.widget.iframe.copy', { name: 'Course page' }) }),
      hands,
    )
    await accessible(page, `${language}: a widget and its codes`)
    const embed = String(await page.evaluate('navigator.clipboard.readText()'))
    expect(embed).toMatch(/^<iframe [^>]*src="http:\/\/127\.0\.0\.1:\d+\/embed\/[^"]+"/)
    return embed
  }

  /** The iframe's video in a page of another origin plays: its time moves. */
  async function playsElsewhere(context: BrowserContext, embed: string): Promise<void> {
    const site = await otherSite(embed)
    try {
      const page = await watchedPage(context, problems)
      await page.goto(site.url)
      const frame = page.frameLocator('iframe')
      const video = frame.locator('video')
      await video.waitFor()
      // Started as a viewer's click on it would (muted: the page of another site gave no user gesture to the frame).
      await video.evaluate((element) => {
        const playing = element as unknown as { muted: boolean; play(): Promise<void> }
        playing.muted = true
        return playing.play()
      })
      await expect
        .poll(() => video.evaluate((element) => (element as unknown as { currentTime: number }).currentTime), {
          timeout: 30_000,
        })
        .toBeGreaterThan(0)
      await page.close()
    } finally {
      await site.close()
    }
  }

  it.each([
    { journey: '(a) the first hour, in English, with a mouse', language: 'en' as const, hands: 'mouse' as const },
    { journey: '(d) the first hour in French', language: 'fr' as const, hands: 'mouse' as const },
    { journey: '(e) the first hour with the keyboard only', language: 'en' as const, hands: 'keyboard' as const },
  ])('$journey', async ({ language, hands }) => {
    const installation = await newInstallation()
    try {
      const context = await personAt(installation, language)
      const page = await watchedPage(context, problems)
      await choosePassword(page, installation.link, language, hands)
      const name = language === 'fr' ? 'cours été.mp4' : 'lecture one.mp4'
      await uploadVideo(page, language, hands, name)
      const embed = await publishAndCopyEmbed(page, language, hands, name)
      await playsElsewhere(context, embed)
      await context.close()
    } finally {
      await installation.close()
    }
  })

  it('(b) a Publisher publishes in their stream, sees nothing of another platform, manages nobody', async () => {
    const installation = await newInstallation()
    try {
      const { admin } = installation
      // Two platforms: the Publisher's (the installation's first, "default") and another with its own media site.
      const platform = await admin.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } })
      expect(platform.status).toBe(201)
      const elsewhere = await createMedia(admin, 'Elsewhere TV', 'elsewhere')
      await createStream(admin, elsewhere, 'Their stream')
      const campus = await createMedia(admin, 'Campus TV')
      const stream = await createStream(admin, campus, 'Physics')
      const created = await admin.post('/platform/default/users', {
        // A password nobody is told: Pat chooses theirs through the sign-in link.
        form: { username: 'pat', email: 'pat@example.org', profile: 'default-publisher', password: randomUUID() },
      })
      expect(created.status).toBe(201)
      // Their media site: the platform's Editor role on it (and so on its streams).
      expect((await admin.post('/user/pat/accesses', { form: { media: campus, role: 'default-editor' } })).status).toBe(
        201,
      )
      const link = (await installation.cli<{ url: string }>(['user', 'sign-in-link', 'pat'])).url

      const context = await personAt(installation, 'en')
      const page = await watchedPage(context, problems)
      await choosePassword(page, link, 'en', 'mouse')
      const nav = page.getByRole('navigation', { name: 'Console sections' })
      expect(await nav.getByRole('link', { name: 'People' }).count()).toBe(0)
      expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0)
      expect(await nav.getByRole('link', { name: 'Jobs' }).count()).toBe(0)

      await uploadVideo(page, 'en', 'mouse', 'talk.mp4')
      await page.getByRole('checkbox', { name: 'Select talk.mp4' }).check()
      await page.getByRole('button', { name: 'Publish…' }).click()
      const into = page.getByRole('combobox', { name: 'Into the stream' })
      await into.waitFor()
      const offered = await into.locator('option').allTextContents()
      expect(offered.join(' ')).toContain('Physics')
      expect(offered.join(' ')).not.toContain('Their stream')
      await into.selectOption({ label: 'Physics' })
      await page.getByRole('button', { name: 'Publish (1)' }).click()
      await page.getByRole('status').filter({ hasText: 'Published: talk' }).waitFor()
      await accessible(page, 'a Publisher published')
      const resources = list<XmlObject>(
        (xmlOf(await admin.get(`/stream/${stream}/resources`), 200).resources as XmlObject).resource,
      )
      expect(resources.map((entry) => text(entry.title))).toEqual(['talk'])

      // The publishing section lists the Publisher's platform's media sites only.
      await page.getByRole('link', { name: 'Publishing', exact: true }).click()
      await page.getByText('Campus TV').first().waitFor()
      expect(await page.getByText('Elsewhere TV').count()).toBe(0)
      await accessible(page, "a Publisher's publishing section")
      // The people section, opened by its address, offers nothing.
      await page.goto(`${installation.url}${SECTIONS.people.path}`)
      await page.getByRole('heading', { name: 'People', exact: true }).waitFor()
      expect(await page.getByRole('button', { name: /^(New|Create|Add)/ }).count()).toBe(0)
      await accessible(page, "a Publisher's people section")
      await context.close()
    } finally {
      await installation.close()
    }
  })

  it('every section fits 320 px and a 200% zoom, and passes axe there, for an administrator', async () => {
    const installation = await newInstallation()
    try {
      const file = text((await uploaded(installation.admin, await makeMedia('png', { size: '64x48' }))).slug)
      await createStream(installation.admin, await createMedia(installation.admin, 'Campus TV'), 'Physics')
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await watchedPage(context, problems)
      await choosePassword(page, installation.link, 'en', 'mouse')
      // 320 px: a phone. 200% zoom: a 1280 x 800 window zoomed twice lays pages out in 640 x 400 CSS pixels (what the
      // layout and axe see; the device pixels only sharpen the text).
      for (const screen of [
        { name: '320 px', width: 320, height: 640 },
        { name: '200% zoom', width: 640, height: 400 },
      ]) {
        await page.setViewportSize({ width: screen.width, height: screen.height })
        for (const [name, section] of Object.entries(SECTIONS)) {
          await page.goto(`${installation.url}${section.path}${name === 'file' ? `?slug=${file}` : ''}`)
          await expect.poll(() => page.getByText(message('en', 'state.loading')).count()).toBe(0)
          const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')
          expect(overflow, `${name} at ${screen.name}: sideways scroll`).toBeLessThanOrEqual(0)
          await accessible(page, `${name} at ${screen.name}`)
        }
      }
      await context.close()
    } finally {
      await installation.close()
    }
  })

  it('left no script error or dialog on any page', () => {
    expect(problems).toEqual([])
  })
})
