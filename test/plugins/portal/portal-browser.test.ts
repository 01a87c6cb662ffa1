import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { waitFor } from '../../helpers/wait.js'
import { startEncodingApp } from '../encoding/encoding.helpers.js'
import { createMedia, createStream, encodedVideo, publish, setWebChannel } from './portal.fixtures.js'

/**
 * The media portal in headless Chromium, on the media's own domain (the browser resolves it to
 * the test server): pages render in their skin, links lead home → stream → resource, the
 * keyboard reaches the skip link and the resource links, the framed player plays.
 */

const CHROMIUM = '/usr/bin/chromium'
const HAS_CHROMIUM = existsSync(CHROMIUM)
const DOMAIN = 'tv.portal.test'
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

/** The little of the browser's DOM these tests touch (they compile without the DOM library). */
interface DomElement {
  id: string
  tagName: string
  textContent: string | null
  getAttribute(name: string): string | null
  getBoundingClientRect(): { top: number; bottom: number; width: number }
  closest(selector: string): DomElement | null
  querySelector(selector: string): DomElement | null
}
interface DomImage extends DomElement {
  alt: string
  complete: boolean
  naturalWidth: number
}
interface DomVideo {
  paused: boolean
  muted: boolean
  currentTime: number
  play(): Promise<void>
}
interface DomWindow {
  document: { activeElement: DomElement | null; body: DomElement; querySelectorAll(selector: string): DomElement[] }
  getComputedStyle(element: DomElement): { backgroundColor: string; outlineStyle: string; outlineWidth: string }
  innerHeight: number
  scrollTo(x: number, y: number): void
}

describe.skipIf(!HAS_CHROMIUM)(
  HAS_CHROMIUM ? 'the media portal in headless Chromium' : `the media portal: SKIPPED, ${CHROMIUM} is missing`,
  () => {
    let app: TestApp
    let browser: Browser
    let media: string
    let site: string
    const s: Record<string, string> = {}
    const r: Record<string, string> = {}
    /** Problems the pages reported (CSP refusals, failed loads, script errors). */
    const problems: string[] = []

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true })
      app = await startEncodingApp()
      const admin = app.client
      media = await createMedia(
        admin,
        'Campus TV',
        DOMAIN,
        'Lectures and events of the campus.\nEvery week, new videos.',
      )
      const file = await encodedVideo(admin, 3)
      s.lectures = await createStream(admin, media, { title: 'Lectures', subtitle: 'All of them' })
      s.physics = await createStream(admin, media, { title: 'Physics', parent_stream: s.lectures })
      s.events = await createStream(admin, media, { title: 'Events' })
      r.intro = await publish(admin, s.lectures, file, {
        title: 'Introduction',
        subtitle: 'Welcome to the course',
        description: 'What the course covers.\nHow it is graded.\n\nSee you on Monday.',
      })
      r.kinematics = await publish(admin, s.physics, file, { title: 'Kinematics' })
      r.opening = await publish(admin, s.events, file, { title: 'Opening ceremony' })
      site = `http://${DOMAIN}:${new URL(app.url).port}`
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-background-networking',
          `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`,
        ],
      })
    })

    afterAll(async () => {
      await browser?.close()
      await app?.close()
    })

    /** A fresh context (no cache: pages are cacheable for a minute) and page, recording what goes wrong. */
    async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`)
      })
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`))
      return { context, page }
    }

    /** The heading levels of the page, in document order. */
    const headingLevels = (page: Page): Promise<number[]> =>
      page.$$eval('h1, h2, h3, h4, h5, h6', (nodes) => nodes.map((node) => Number(node.tagName.slice(1))))

    /** Checks the page's outline: one h1 first, no level skipped going down. */
    async function expectHeadingsInOrder(page: Page): Promise<void> {
      const levels = await headingLevels(page)
      expect(levels[0]).toBe(1)
      expect(levels.filter((level) => level === 1)).toHaveLength(1)
      for (let i = 1; i < levels.length; i++) expect(levels[i]!).toBeLessThanOrEqual(levels[i - 1]! + 1)
    }

    /** Checks the landmarks, `lang`, and that every thumbnail has the title as its alt text. */
    async function expectAccessibleShell(page: Page): Promise<void> {
      expect(await page.getAttribute('html', 'lang')).toBe('en')
      expect(await page.getByRole('banner').count()).toBe(1)
      expect(await page.getByRole('main').count()).toBe(1)
      expect(await page.getByRole('contentinfo').count()).toBe(1)
      expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1)
      const images = await page.$$eval('img.thumb', (nodes) =>
        (nodes as unknown as DomImage[]).map((img) => ({
          alt: img.alt,
          title: img.closest('a')?.querySelector('.card-title')?.textContent ?? '',
        })),
      )
      for (const image of images) expect(image.alt).toBe(image.title)
    }

    /** Waits until every thumbnail of the page has loaded (lazy ones are scrolled into view first). */
    async function thumbnailsLoaded(page: Page): Promise<void> {
      for (const img of await page.locator('img.thumb').all()) await img.scrollIntoViewIfNeeded()
      await page.waitForFunction(() =>
        [...(globalThis as unknown as DomWindow).document.querySelectorAll('img.thumb')].every(
          (img) => (img as DomImage).complete && (img as DomImage).naturalWidth > 0,
        ),
      )
      await page.evaluate(() => (globalThis as unknown as DomWindow).scrollTo(0, 0))
    }

    /** Plays the framed player (muted, so no user gesture is needed) until its video has advanced. */
    async function expectPlayerPlays(page: Page): Promise<number> {
      const video = page.frameLocator('iframe[title^="Player: "]').locator('video')
      await video.waitFor({ state: 'attached', timeout: 20_000 })
      let time = 0
      await waitFor(
        async () => {
          time = await video.evaluate((node) => {
            const v = node as unknown as DomVideo
            if (v.paused) {
              v.muted = true
              void v.play().catch(() => undefined)
            }
            return v.currentTime
          })
          return time > 0.5
        },
        { timeout: 25_000, interval: 250, message: () => `the framed player to play (at ${time} s)` },
      )
      return time
    }

    it('goes home → stream → resource by clicking links, and the framed player plays', async () => {
      const { context, page } = await openPage()
      try {
        const home = await page.goto(`${site}/`)
        expect(home?.status()).toBe(200)
        await expect(page.title()).resolves.toBe('Campus TV')
        await expectAccessibleShell(page)
        await expectHeadingsInOrder(page)
        // The stylesheet applies (light skin), from the media's own domain.
        const background = await page.evaluate(() => {
          const w = globalThis as unknown as DomWindow
          return w.getComputedStyle(w.document.body).backgroundColor
        })
        expect(background).toBe('rgb(255, 255, 255)')
        await thumbnailsLoaded(page)
        await page.screenshot({ path: `${ARTIFACTS}portal-home-light.png`, fullPage: true })

        await page.getByRole('heading', { name: 'Lectures' }).getByRole('link').click()
        await page.waitForURL(`${site}/stream/${s.lectures}`)
        await expect(page.locator('h1').textContent()).resolves.toBe('Lectures')
        await expectHeadingsInOrder(page)
        await expect(page.getByRole('link', { name: 'Physics' }).count()).resolves.toBeGreaterThan(0)

        await page.locator(`a[href="/resource/${r.intro}"]`).click()
        await page.waitForURL(`${site}/resource/${r.intro}`)
        await expect(page.locator('h1').textContent()).resolves.toBe('Introduction')
        await expectAccessibleShell(page)
        await expectHeadingsInOrder(page)
        expect(await page.locator('.text p').first().innerHTML()).toBe('What the course covers.<br>How it is graded.')
        const src = await page.getAttribute('iframe', 'src')
        expect(src).toBe(`${app.url}/player/${r.intro}`)
        await expectPlayerPlays(page)
        await page.screenshot({ path: `${ARTIFACTS}portal-resource-light.png`, fullPage: true })
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 90_000)

    it('reaches the skip link first with Tab, shows its focus, skips to the content, then reaches the resource links', async () => {
      const { context, page } = await openPage()
      try {
        await page.goto(`${site}/`)
        await page.keyboard.press('Tab')
        const skip = await page.evaluate(() => {
          const w = globalThis as unknown as DomWindow
          const active = w.document.activeElement!
          const style = w.getComputedStyle(active)
          const box = active.getBoundingClientRect()
          return {
            text: active.textContent,
            href: active.getAttribute('href'),
            outline: `${style.outlineStyle} ${style.outlineWidth}`,
            visible: box.top >= 0 && box.bottom <= w.innerHeight && box.width > 0,
          }
        })
        expect(skip).toEqual({ text: 'Skip to content', href: '#main', outline: 'solid 3px', visible: true })
        await page.keyboard.press('Enter')
        await expect
          .poll(() => page.evaluate(() => (globalThis as unknown as DomWindow).document.activeElement?.id))
          .toBe('main')
        const reached: string[] = []
        for (let i = 0; i < 20; i++) {
          await page.keyboard.press('Tab')
          const href = await page.evaluate(
            () => (globalThis as unknown as DomWindow).document.activeElement?.getAttribute('href') ?? '',
          )
          reached.push(href)
          if (href.startsWith('/resource/')) break
        }
        // From the content, the first stops are the stream heading then its first resource.
        expect(reached[0]).toBe(`/stream/${s.lectures}`)
        expect(reached.at(-1)).toBe(`/resource/${r.intro}`)
        const outline = await page.evaluate(() => {
          const w = globalThis as unknown as DomWindow
          return w.getComputedStyle(w.document.activeElement!).outlineStyle
        })
        expect(outline).toBe('solid')
        await page.keyboard.press('Enter')
        await page.waitForURL(`${site}/resource/${r.intro}`)
      } finally {
        await context.close()
      }
    }, 60_000)

    it('renders the dark skin (and the cinema theme) once the web channel asks for it', async () => {
      await setWebChannel(app.client, media, { skin: 'dark', theme: 'cinema' })
      const { context, page } = await openPage()
      try {
        await page.goto(`${site}/`)
        expect(await page.getAttribute('html', 'class')).toBe('theme-cinema skin-dark')
        const background = await page.evaluate(() => {
          const w = globalThis as unknown as DomWindow
          return w.getComputedStyle(w.document.body).backgroundColor
        })
        expect(background).toBe('rgb(18, 20, 23)')
        await thumbnailsLoaded(page)
        await page.screenshot({ path: `${ARTIFACTS}portal-home-dark.png`, fullPage: true })
        await page.goto(`${site}/resource/${r.kinematics}`)
        await expect(page.locator('h1').textContent()).resolves.toBe('Kinematics')
        await expectPlayerPlays(page)
        await page.screenshot({ path: `${ARTIFACTS}portal-resource-dark.png`, fullPage: true })
        // The path fallback serves the same page on the API's own address.
        const fallback = await page.goto(`${app.url}/portal/${media}/resource/${r.kinematics}`)
        expect(fallback?.status()).toBe(200)
        await expect(page.locator('.site-name a').getAttribute('href')).resolves.toBe(`/portal/${media}`)
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 90_000)
  },
)
