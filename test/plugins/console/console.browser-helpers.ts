import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AxeBuilder } from '@axe-core/playwright'
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core'
import { expect } from 'vitest'

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
