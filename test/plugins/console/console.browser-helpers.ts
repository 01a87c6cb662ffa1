import { existsSync, mkdirSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AxeBuilder } from '@axe-core/playwright'
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core'
import { expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { sessionThroughLink } from './console.helpers.js'

/** Debian's Chromium, driven by playwright-core: the console's browser files skip without it. */
export const CHROMIUM = '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM)

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** Where screenshots go: test-artifacts/console/, or docs/images/console/ with MEDIACTL_DOCS_SCREENSHOTS=1. */
export const SHOTS =
  process.env.MEDIACTL_DOCS_SCREENSHOTS === '1'
    ? join(ROOT, 'docs/images/console')
    : join(ROOT, 'test-artifacts/console')

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true })
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
}

/** No WCAG 2.2 A/AA violation on the page as it is now. */
export async function accessible(page: Page, state: string): Promise<void> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze()
  const found = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  )
  expect(found, `axe on ${state}`).toEqual([])
}

/** A new page that records script errors, console errors and dialogs in `problems`. */
export async function watchedPage(context: BrowserContext, problems: string[]): Promise<Page> {
  const page = await context.newPage()
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)))
  page.on('dialog', (dialog) => void problems.push(`dialog: ${dialog.message()}`))
  return page
}

/** What the browser logs for a request the server refused with `status` (a refusal a test provokes on purpose). */
export const refusedLoad = (status: number): string =>
  `console: Failed to load resource: the server responded with a status of ${status} (${STATUS_CODES[status]})`

/** How a test's browser context looks: its language and viewport, and whether its pages may use the clipboard. */
export interface ContextOptions {
  locale?: string
  width?: number
  height?: number
  clipboard?: boolean
}

/**
 * Headless Chromium for one browser test file, on one app: contexts that record every page's script errors, console
 * errors and dialogs in `problems`, and pages signed in through a sign-in link. Launch it at the end of `beforeAll`,
 * close it in `afterAll`.
 */
export class ConsoleChromium {
  /** Every problem any page had, in order (see `watchedPage`). */
  readonly problems: string[] = []
  private readonly contexts: BrowserContext[] = []
  private browser: Browser | undefined
  private app: TestApp | undefined

  /** `defaults`: how this file's contexts look unless a call says otherwise. */
  constructor(private readonly defaults: ContextOptions = {}) {}

  /** Starts Chromium for the pages of `app` (signed in to it, allowed its clipboard). */
  async launch(app: TestApp): Promise<void> {
    this.app = app
    this.browser = await launchChromium()
  }

  /** A new context, with no session; closed by `problemsOnceClosed` and `close`. */
  async context(options: ContextOptions = {}): Promise<BrowserContext> {
    const { locale = 'en-GB', width = 1024, height = 800, clipboard = false } = { ...this.defaults, ...options }
    if (!this.browser || !this.app) throw new Error('ConsoleChromium: launch it first')
    const context = await this.browser.newContext({ viewport: { width, height }, locale })
    this.contexts.push(context)
    if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: this.app.url })
    return context
  }

  /** A new page of `context` whose problems are recorded. */
  page(context: BrowserContext): Promise<Page> {
    return watchedPage(context, this.problems)
  }

  /** A page signed in as `username` (through a sign-in link), in a context of its own. */
  async signedIn(username: string, options: ContextOptions = {}): Promise<Page> {
    const app = this.app!
    const context = await this.context(options)
    const session = await sessionThroughLink(app, username)
    const [name, value] = session.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: app.url }])
    return this.page(context)
  }

  /**
   * Opens the console on `page`, of a user whose profile lacks `section`: the nav holds no link to it, and its address
   * (`path`) says `why` instead.
   */
  async expectNotOffered(page: Page, section: string, path: string, why: string): Promise<void> {
    await page.goto(`${this.app!.url}/console`)
    const sections = page.getByRole('navigation', { name: 'Console sections' })
    await sections.getByRole('link', { name: 'Dashboard' }).waitFor()
    expect(await sections.getByRole('link', { name: section }).count()).toBe(0)
    await page.goto(`${this.app!.url}${path}`)
    await page.getByText(why).waitFor()
  }

  /** The problems but those matching `expected` (the refusals a test provokes). */
  problemsBut(expected: RegExp): string[] {
    return this.problems.filter((problem) => !expected.test(problem))
  }

  /** Every problem, once every context is closed (no request of their pages is still coming). */
  async problemsOnceClosed(): Promise<string[]> {
    for (const context of this.contexts.splice(0)) await context.close()
    return this.problems
  }

  /** Closes Chromium (and its contexts), then `app` if it started: for `afterAll`. */
  async close(app: TestApp | undefined): Promise<void> {
    await this.browser?.close()
    await app?.close()
  }
}
