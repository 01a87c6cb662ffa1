import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { createPlatform } from '../players/players.helpers.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible } from './console.browser-helpers.js'

/**
 * The console's platform settings in headless Chromium: a platform administrator changes the timestamp dialect, a
 * theme (a name holding markup, shown as text), makes, fixes and deletes a theme, changes a behavior, sees the quotas
 * read-only; an installation administrator changes them; another platform's administrator sees their own platform
 * (with no theme left: the empty state); a Publisher is not offered the section and the API refuses them. Each change
 * is checked through the API. French, the keyboard, 320 px; axe on every state.
 */

const HOSTILE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]> Dark`

describe.skipIf(!HAS_CHROMIUM)('the platform settings in Chromium', { timeout: 90_000 }, () => {
  let app: TestApp
  let padmin: DigestClient
  let publisher: DigestClient
  const chromium = new ConsoleChromium()

  beforeAll(async () => {
    app = await startApp()
    padmin = await userWithProfile(app, 'padmin', 'default-administrator')
    publisher = await userWithProfile(app, 'publisher', 'default-publisher')
    await createPlatform(app.client, 'Other')
    await userWithProfile(app, 'otheradmin', 'other-administrator')
    for (const slug of ['other-light', 'other-dark']) {
      expect((await app.client.delete(`/platform/other/player_theme/${slug}`)).status).toBe(204)
    }
    await chromium.launch(app)
  }, 120_000)

  afterAll(() => chromium.close(app))

  afterEach(() => {
    // The refusals the tests provoke (an empty name, a wrong logo address) are the only console errors.
    expect(chromium.problemsBut(/status of 412\b/)).toEqual([])
  })

  /** An API answer's element, read by `client`. */
  const read = async (client: DigestClient, path: string): Promise<XmlObject> => {
    const doc = xmlOf(await client.get(path), 200)
    return doc[Object.keys(doc).find((key) => !key.startsWith('?'))!] as XmlObject
  }

  it('changes the timestamp dialect; the quotas are read-only for a platform administrator', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console`)
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('heading', { name: 'Platform settings', level: 1 }).waitFor()
    const form = page.getByRole('form', { name: 'Platform Default' })
    await form.getByText('Only installation administrators change the quotas.').waitFor()
    expect(await form.getByRole('spinbutton').count()).toBe(0)
    await accessible(page, 'the platform settings')
    await page.screenshot({ path: join(SHOTS, 'settings.png'), fullPage: true })

    await form
      .getByRole('combobox', { name: 'How the API writes dates' })
      .selectOption({ label: 'Unix seconds (1763747319)' })
    await form.getByRole('button', { name: 'Save the platform settings' }).click()
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await accessible(page, 'the platform settings saved')
    expect(text((await read(padmin, '/platform/default')).timestamps)).toBe('unix')

    await form.getByRole('textbox', { name: 'Name' }).fill('')
    await form.getByRole('button', { name: 'Save the platform settings' }).click()
    await form
      .getByRole('status')
      .filter({ hasText: 'This was refused: ' })
      .filter({ hasText: 'name: cannot be empty' })
      .waitFor()
    await accessible(page, 'the platform settings refused')
    expect(text((await read(padmin, '/platform/default')).name)).toBe('Default')
    await form.getByRole('textbox', { name: 'Name' }).fill('Default')

    await form
      .getByRole('combobox', { name: 'How the API writes dates' })
      .selectOption({ label: 'As the installation chooses' })
    await form.getByRole('button', { name: 'Save the platform settings' }).click()
    await expect.poll(async () => text((await read(padmin, '/platform/default')).timestamps)).toBe('')
    await page.close()
  })

  it('changes a theme, shows a name holding markup as text, makes, fixes and deletes a theme', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console/settings`)
    const themes = page.getByRole('region', { name: 'Player themes' })
    await themes.getByRole('button', { name: 'Change Dark' }).click()
    const dark = themes.getByRole('form', { name: 'Theme Dark' })
    await dark.getByLabel('Color of the controls').fill('#ff0080')
    await dark.getByRole('textbox', { name: 'Name' }).fill(HOSTILE)
    await accessible(page, 'a theme being changed')
    await dark.screenshot({ path: join(SHOTS, 'settings-theme.png') })
    await dark.getByRole('button', { name: 'Save Dark' }).click()
    await themes
      .getByRole('status')
      .filter({ hasText: `${HOSTILE}: saved.` })
      .waitFor()
    await themes.getByRole('button', { name: `Change ${HOSTILE}` }).waitFor()
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    const theme = await read(padmin, '/platform/default/player_theme/default-dark')
    expect([text(theme.name), text(theme.accent_color), text(theme.background_color)]).toEqual([
      HOSTILE,
      '#ff0080',
      '#121212',
    ])

    await themes.getByRole('textbox', { name: 'Name of a new theme' }).fill('Brand')
    await themes.getByRole('button', { name: 'Add the theme' }).click()
    const brand = themes.getByRole('form', { name: 'Theme Brand' })
    await brand.getByRole('textbox', { name: 'Logo address (URL), empty for no logo' }).fill('javascript:alert(1)')
    await brand.getByRole('button', { name: 'Save Brand' }).click()
    await brand.getByRole('alert').filter({ hasText: 'logo_url: must be an absolute http or https URL' }).waitFor()
    await accessible(page, 'a refused theme')
    await brand
      .getByRole('textbox', { name: 'Logo address (URL), empty for no logo' })
      .fill('https://cdn.example.org/logo.png')
    await brand.getByRole('combobox', { name: 'Where the logo sits' }).selectOption({ label: 'Bottom left' })
    await brand.getByRole('button', { name: 'Save Brand' }).click()
    await themes.getByRole('status').filter({ hasText: 'Brand: saved.' }).waitFor()
    const made = list<XmlObject>((await read(padmin, '/platform/default/player_theme')).player_theme)
    expect(made.map((entry) => text(entry.name))).toEqual(['Light', HOSTILE, 'Brand'])
    const saved = await read(padmin, `/platform/default/player_theme/${text(made[2]!.slug)}`)
    expect([text(saved.logo_url), text(saved.logo_position)]).toEqual([
      'https://cdn.example.org/logo.png',
      'bottom-left',
    ])

    await themes.getByRole('button', { name: 'Delete Brand' }).click()
    await themes.getByRole('alertdialog').waitFor()
    await accessible(page, 'a theme delete confirmation')
    await themes.getByRole('button', { name: 'Yes, delete it' }).click()
    await themes.getByRole('status').filter({ hasText: 'Brand was deleted.' }).waitFor()
    const left = list<XmlObject>((await read(padmin, '/platform/default/player_theme')).player_theme)
    expect(left.map((entry) => text(entry.name))).toEqual(['Light', HOSTILE])
    await page.close()
  })

  it('changes a behavior', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console/settings`)
    const behaviors = page.getByRole('region', { name: 'Player behaviors' })
    await behaviors.getByRole('button', { name: 'Change Loop' }).click()
    const loop = behaviors.getByRole('form', { name: 'Behavior Loop' })
    await loop.getByRole('checkbox', { name: 'Start with the sound off' }).check()
    await loop.getByRole('spinbutton', { name: 'Start at, in seconds' }).fill('90')
    await loop.getByRole('textbox', { name: /Subtitles to show first/ }).fill('fr')
    await accessible(page, 'a behavior being changed')
    await loop.getByRole('button', { name: 'Save Loop' }).click()
    await behaviors.getByRole('status').filter({ hasText: 'Loop: saved.' }).waitFor()
    const behavior = await read(padmin, '/platform/default/player_behavior/default-loop')
    expect([text(behavior.muted), text(behavior.loop), text(behavior.start_time)]).toEqual(['1', '1', '90'])
    expect((behavior.subtitle_language as XmlObject)['@code']).toBe('fr')
    await page.close()
  })

  it('lets an installation administrator change the quotas', async () => {
    const page = await chromium.signedIn('admin')
    await page.goto(`${app.url}/console/settings`)
    const form = page.getByRole('form', { name: 'Platform Default' })
    await form.getByRole('spinbutton', { name: 'Most users (0: no limit)' }).fill('50')
    await accessible(page, 'the quotas, editable')
    await form.getByRole('button', { name: 'Save the platform settings' }).click()
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await form.getByText(/^\d+ of 50 users$/).waitFor()
    expect(text((await read(app.client, '/platform/default')).max_users)).toBe('50')
    await page.close()
  })

  it("shows another platform's administrator their own platform, with no theme left", async () => {
    const page = await chromium.signedIn('otheradmin')
    await page.goto(`${app.url}/console/settings`)
    await page.getByRole('form', { name: 'Platform Other' }).waitFor()
    const themes = page.getByRole('region', { name: 'Player themes' })
    await themes.getByText('No theme yet.').waitFor()
    expect(await page.getByText(HOSTILE).count()).toBe(0)
    await accessible(page, 'no theme yet')
    expect((await padmin.put('/platform/other', { form: { timestamps: 'unix' } })).status).toBe(404)
    await page.close()
  })

  it('in French, with the keyboard only, and 320 px wide', async () => {
    const page = await chromium.signedIn('padmin', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/settings`)
    await page.getByRole('heading', { name: 'Réglages de la plateforme', level: 1 }).waitFor()
    await page.getByRole('region', { name: 'Thèmes du lecteur' }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the French settings at 320 px')

    await page.getByRole('textbox', { name: 'Nom d’un nouveau comportement' }).focus()
    await page.keyboard.type('Clavier')
    await page.keyboard.press('Enter')
    const form = page.getByRole('form', { name: 'Comportement Clavier' })
    await form.waitFor()
    await form.getByRole('checkbox', { name: 'Commencer sans le son' }).focus()
    await page.keyboard.press('Space')
    await form.getByRole('button', { name: 'Enregistrer Clavier' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'Clavier : enregistré.' }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a French behavior saved at 320 px')
    const behaviors = list<XmlObject>((await read(padmin, '/platform/default/player_behavior')).player_behavior)
    const made = behaviors.find((entry) => text(entry.name) === 'Clavier')!
    expect(text((await read(padmin, `/platform/default/player_behavior/${text(made.slug)}`)).muted)).toBe('1')
    await page.close()
  })

  it('is not offered to a Publisher, and the API refuses them', async () => {
    const page = await chromium.signedIn('publisher')
    const why = 'The platform settings are for the administrators of the platform'
    await chromium.expectNotOffered(page, 'Settings', '/console/settings', why)
    expect(
      await page
        .getByRole('button')
        .filter({ hasText: /Save|Change|Add/ })
        .count(),
    ).toBe(0)
    await accessible(page, 'settings, not for a Publisher')
    expect((await publisher.put('/platform/default', { form: { timestamps: 'unix' } })).status).toBe(403)
    expect((await publisher.post('/platform/default/player_theme', { form: { name: 'Mine' } })).status).toBe(403)
    await page.close()
  })
})
