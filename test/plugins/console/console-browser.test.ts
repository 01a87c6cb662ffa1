import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { DigestClient } from '../../helpers/digest-client.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible, refusedLoad } from './console.browser-helpers.js'
import { linkFor } from './console.helpers.js'

/**
 * The console in headless Chromium: a new administrator's sign-in link, the password chosen, the dashboard, the
 * French console, sign-out and sign-in again with the keyboard only. Controls are found by role and accessible
 * name; axe-core (WCAG 2.2 AA) runs on every state reached. Screenshots go to test-artifacts/console/, and to
 * docs/images/console/ with MEDIACTL_DOCS_SCREENSHOTS=1 (npm run docs:screenshots).
 */

const PASSWORD = 'a long and memorable sentence'
/** A platform name that would run script if any page inserted it as markup. */
const HOSTILE = `Campus <script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>`

describe.skipIf(!HAS_CHROMIUM)('the console in Chromium', { timeout: 90_000 }, () => {
  let app: TestApp
  let context: BrowserContext
  const chromium = new ConsoleChromium({ height: 700 })

  beforeAll(async () => {
    app = await startApp()
    expect(
      (
        await app.client.put('/platform/default', {
          form: { name: HOSTILE, max_space: '10000000000', max_users: '20' },
        })
      ).status,
    ).toBe(200)
    await chromium.launch(app)
    context = await chromium.context()
  }, 120_000)

  afterAll(() => chromium.close(app))

  const newPage = (): Promise<Page> => chromium.page(context)

  it('a new administrator opens the link, chooses a password and sees the dashboard, names shown as text', async () => {
    const page = await newPage()
    await page.goto(await linkFor(app, 'admin'))
    await expect.poll(() => page.title()).toContain('Choose your password')
    await accessible(page, 'the link page')
    await page.getByLabel('New password', { exact: true }).fill('too short')
    await page.getByLabel('New password, again').fill('too short')
    // The browser's own check (minlength) stops the form first; the server says the same without it.
    await page.getByRole('button', { name: 'Save the password and sign in' }).click()
    expect(page.url()).toContain('/console/link/')
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('New password, again').fill(PASSWORD)
    await page.getByRole('button', { name: 'Save the password and sign in' }).click()
    await page.waitForURL(`${app.url}/console`)
    await page.getByRole('heading', { name: /^Platform Campus/ }).waitFor()
    await accessible(page, 'the dashboard')
    await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true })

    const heading = await page.getByRole('heading', { name: /^Platform Campus/ }).textContent()
    expect(heading).toBe(`Platform ${HOSTILE}`)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await expect.poll(() => page.getByText('0 B of 10 GB used').count()).toBe(1)
    await expect.poll(() => page.getByText('1 of 20 users').count()).toBe(1)
    expect(await page.getByRole('meter', { name: 'Storage' }).count()).toBe(1)
    expect(await page.getByText('No media site yet.').count()).toBe(1)
    expect(await page.getByText('Signed in as admin').count()).toBe(1)
    await page.close()
  })

  it('switches to French and back, the choice kept across pages', async () => {
    const page = await newPage()
    await page.goto(`${app.url}/console`)
    await page.getByRole('link', { name: 'Afficher la console en français' }).click()
    await page.getByRole('heading', { name: 'Tableau de bord' }).waitFor()
    expect(await page.locator('html').getAttribute('lang')).toBe('fr')
    await expect.poll(() => page.getByText('0 o utilisés sur 10 Go').count()).toBe(1)
    await accessible(page, 'the French dashboard')
    await page.screenshot({ path: join(SHOTS, 'dashboard-fr.png'), fullPage: true })
    await page.reload()
    await page.getByRole('heading', { name: 'Tableau de bord' }).waitFor()
    await page.getByRole('link', { name: 'Show the console in English' }).click()
    await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor()
    await page.close()
  })

  it('signs out, refuses a wrong password with a clear message, then signs in with the keyboard only', async () => {
    const page = await newPage()
    await page.goto(`${app.url}/console`)
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.waitForURL(/\/console\/sign-in/)
    await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor()
    await accessible(page, 'the sign-in page, signed out')
    // The dashboard is gone with the session.
    await page.goto(`${app.url}/console`)
    await page.waitForURL(/\/console\/sign-in$/)

    await page.getByLabel('Username').fill('admin')
    await page.getByLabel('Password').fill('not my password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor()
    await accessible(page, 'the sign-in page, refused')
    await page.screenshot({ path: join(SHOTS, 'sign-in-refused.png') })

    // Keyboard only: the fields in order, Enter to send.
    await page.goto(`${app.url}/console/sign-in`)
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.id')).toBe('username')
    await page.keyboard.type('admin')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.id')).toBe('password')
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press('Enter')
    await page.waitForURL(`${app.url}/console`)
    // The skip link comes first, and leads to the content.
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to the content')
    await page.getByRole('heading', { name: /^Platform Campus/ }).waitFor()
    await page.close()
  })

  it('fits 320 px wide without scrolling sideways', async () => {
    const page = await newPage()
    await page.setViewportSize({ width: 320, height: 640 })
    await page.goto(`${app.url}/console`)
    await page.getByRole('heading', { name: /^Platform Campus/ }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the dashboard at 320 px')
    await page.screenshot({ path: join(SHOTS, 'dashboard-320.png'), fullPage: true })
    await page.close()
  })

  it('makes a new API key after a confirmation, shows it once, and it works with Digest (the old one no more)', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    const page = await newPage()
    await page.goto(`${app.url}/console`)
    await page.getByRole('button', { name: 'Make a new API key' }).click()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Make a new API key' }).click()
    await page.getByRole('group', { name: 'Your current key will stop working at once. Make a new one?' }).waitFor()
    await accessible(page, 'the API key confirmation')
    await page.getByRole('button', { name: 'Yes, replace my key' }).click()
    const field = page.getByRole('textbox', { name: 'Your new API key' })
    await field.waitFor()
    const key = await field.inputValue()
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/)
    await page.getByRole('button', { name: 'Copy the key' }).click()
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key)
    await accessible(page, 'the new API key shown')
    await page.screenshot({ path: join(SHOTS, 'api-key.png') })
    expect((await new DigestClient(app.url, 'admin', key).get('/')).status).toBe(200)
    expect((await app.client.get('/')).status).toBe(401)
    // Shown once: a reload shows the button again, never the key.
    await page.reload()
    await page.getByRole('button', { name: 'Make a new API key' }).waitFor()
    expect(await page.content()).not.toContain(key)
    await page.close()
  })

  it('left no script error or dialog on any page, and no console error but the refused password', async () => {
    expect(await chromium.problemsOnceClosed()).toEqual([refusedLoad(401)])
  })
})
