import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { createMedia } from '../resources/resources.helpers.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible, refusedLoad } from './console.browser-helpers.js'

/**
 * The console's people section in headless Chromium: a platform administrator creates a user, gets them a sign-in
 * link (which works: the user chooses a password through it), a new API key, makes a group and adds them, makes a
 * role and grants it on a media site, revokes it, deletes a user; each checked through the API. A viewer sees no
 * control; a user manager is offered only the profiles they could give, and no control on stronger users. Names that
 * hold markup shown as text; French; the keyboard; 320 px. axe on every state.
 */

const HOSTILE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>`
const PASSWORD = 'a sentence newbie remembers'

/** The usernames of an API list of users. */
const usernamesIn = (doc: XmlObject, root: string): string[] =>
  list<XmlObject>((doc[root] as XmlObject).user).map((user) => text(user.username))

describe.skipIf(!HAS_CHROMIUM)('the people section in Chromium', { timeout: 120_000 }, () => {
  let app: TestApp
  let pia: DigestClient
  let viv: DigestClient
  let manager: DigestClient
  let media: string
  const chromium = new ConsoleChromium()

  beforeAll(async () => {
    app = await startApp()
    pia = await userWithProfile(app, 'pia', 'default-administrator')
    viv = await userWithProfile(app, 'viv', 'default-viewer')
    await userWithProfile(app, 'leaver', 'default-viewer')
    const managerProfile = await makeProfile(app, [
      'platform.view',
      'user.view',
      'user.create',
      'user.edit',
      'user_profile.view',
      'group.view',
    ])
    manager = await userWithProfile(app, 'manager', managerProfile)
    const hostile = await userWithProfile(app, 'hostile', 'default-viewer')
    expect((await hostile.put('/user/hostile', { form: { first_name: HOSTILE } })).status).toBe(200)
    expect((await pia.post('/platform/default/groups', { form: { name: HOSTILE } })).status).toBe(201)
    media = await createMedia(app.client, 'Campus')
    await chromium.launch(app)
  }, 120_000)

  afterAll(() => chromium.close(app))

  const tabs = (page: Page) => page.getByRole('navigation', { name: 'People of the platform' })

  it('lists the users, names with markup as text; creates a user; gives them a sign-in link that works', async () => {
    const page = await chromium.signedIn('pia')
    await page.goto(`${app.url}/console`)
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'People' }).click()
    await page.getByRole('heading', { name: 'People', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'hostile', exact: true }).waitFor()
    expect(await page.getByRole('cell', { name: HOSTILE }).count()).toBe(1)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(await tabs(page).getByRole('link', { name: 'Users' }).getAttribute('aria-current')).toBe('page')
    await accessible(page, 'the users')
    await page.screenshot({ path: join(SHOTS, 'people.png'), fullPage: false })

    await page.getByRole('textbox', { name: 'Username', exact: true }).fill('newbie')
    await page.getByRole('textbox', { name: 'First name' }).fill('New')
    await page.getByRole('textbox', { name: 'E-mail' }).fill('newbie@example.org')
    await page.getByRole('combobox', { name: 'Profile' }).selectOption({ label: 'Publisher' })
    await page.getByRole('button', { name: 'Create the user' }).click()
    await page.getByRole('heading', { name: 'User newbie' }).waitFor()
    const made = xmlOf(await pia.get('/user/newbie'), 200).user as XmlObject
    expect(text(made.first_name)).toBe('New')
    expect((made.profile as XmlObject)['@href']).toBe(`${app.url}/profile/default-publisher`)
    await accessible(page, "the new user's page")

    // A link once, with its copy button; the user opens it and chooses a password.
    await page.getByRole('button', { name: 'Make a sign-in link' }).click()
    const shown = page.getByRole('textbox', { name: 'Sign-in link for newbie' })
    await shown.waitFor()
    const link = await shown.inputValue()
    expect(link).toMatch(new RegExp(`^${app.url}/console/link/[A-Za-z0-9]{43}$`))
    await accessible(page, 'a sign-in link, shown once')
    const theirs = await chromium.page(await chromium.context())
    await theirs.goto(link)
    await theirs.getByLabel('New password', { exact: true }).fill(PASSWORD)
    await theirs.getByLabel('New password, again').fill(PASSWORD)
    await theirs.getByRole('button', { name: 'Save the password and sign in' }).click()
    await theirs.getByText('Signed in as newbie').waitFor()
    await theirs.close()

    // Their details: a last name, saved through the API.
    await page.getByRole('textbox', { name: 'Last name' }).fill('Comer')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    expect(text((xmlOf(await pia.get('/user/newbie'), 200).user as XmlObject).last_name)).toBe('Comer')
    await accessible(page, 'details saved')

    // A new API key, asked twice, shown once; it works.
    await page.getByRole('button', { name: 'Make a new API key…' }).click()
    await accessible(page, 'a new key, asked')
    await page.getByRole('button', { name: 'Yes, make a new key' }).click()
    const key = await page.getByRole('textbox', { name: 'New API key of newbie' }).inputValue()
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/)
    expect((await app.clientFor('newbie', key).get('/user/newbie')).status).toBe(200)
    await accessible(page, 'a new key, shown once')
    await page.close()
  })

  it('makes a group and adds the user; makes a role, grants it on a media site and revokes it', async () => {
    const page = await chromium.signedIn('pia')
    await page.goto(`${app.url}/console/people?tab=groups`)
    await page.getByRole('link', { name: HOSTILE }).waitFor()
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await page.getByRole('textbox', { name: 'Group name' }).fill('Night shift')
    await page.getByRole('button', { name: 'Create the group' }).click()
    await page.getByRole('heading', { name: 'Group Night shift' }).waitFor()
    await page.getByText('No members yet.').waitFor()
    await page.getByText('No accesses.').waitFor()
    await accessible(page, 'a new group, empty')
    await page.getByRole('textbox', { name: 'Username to add' }).fill('newbie')
    await page.getByRole('button', { name: 'Add to the group' }).click()
    await page.getByRole('button', { name: 'Remove newbie from the group' }).waitFor()
    expect(usernamesIn(xmlOf(await pia.get('/group/night-shift/users'), 200), 'users')).toEqual(['newbie'])
    await accessible(page, 'a group with a member')

    await tabs(page).getByRole('link', { name: 'Roles' }).click()
    await page.getByRole('link', { name: 'Manager' }).waitFor()
    await accessible(page, 'the roles')
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Campus editor')
    await page.getByRole('checkbox', { name: 'media.edit', exact: true }).check()
    await page.getByRole('button', { name: 'Create the role' }).click()
    await page.getByRole('heading', { name: 'Role Campus editor' }).waitFor()
    expect(await page.getByRole('checkbox', { name: 'media.edit', exact: true }).isChecked()).toBe(true)
    const role = xmlOf(await pia.get('/role/campus-editor'), 200).role as XmlObject
    expect(text(((role.permissions as XmlObject).media as XmlObject).edit)).toBe('1')
    await accessible(page, 'a new role')

    await page.goto(`${app.url}/console/people?tab=users&open=newbie`)
    await page.getByRole('heading', { name: 'Grant a role' }).waitFor()
    await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption({ label: 'Campus editor' })
    await page.getByRole('combobox', { name: 'On a' }).selectOption({ label: 'media site' })
    await page.getByRole('combobox', { name: 'Which one' }).selectOption(media)
    await page.getByRole('button', { name: 'Grant', exact: true }).click()
    const revoke = page.getByRole('button', { name: `Revoke the role campus-editor on media site ${media} of newbie` })
    await revoke.waitFor()
    const granted = list<XmlObject>((xmlOf(await pia.get('/user/newbie/accesses'), 200).accesses as XmlObject).access)
    expect(granted.map((access) => (access.media as XmlObject)['@href'])).toEqual([`${app.url}/media/${media}`])
    await accessible(page, 'a role granted on a media site')
    await revoke.click()
    await page.getByText('No accesses.').waitFor()
    expect(xmlOf(await pia.get('/user/newbie/accesses'), 200).accesses).not.toHaveProperty('access')
    await accessible(page, 'the access revoked')

    // A profile: only the flags one holds can be ticked (a platform administrator lacks instance.view).
    await tabs(page).getByRole('link', { name: 'Profiles' }).click()
    await page.getByRole('heading', { name: 'New profile' }).waitFor()
    expect(await page.getByRole('checkbox', { name: 'instance.view' }).isDisabled()).toBe(true)
    await accessible(page, 'the profiles')
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Uploader')
    await page.getByRole('spinbutton', { name: 'Storage per user, in MB (0: unlimited)' }).fill('1000')
    await page.getByRole('checkbox', { name: 'file.create', exact: true }).check()
    await page.getByRole('button', { name: 'Create the profile' }).click()
    await page.getByRole('heading', { name: 'Profile Uploader' }).waitFor()
    const profile = xmlOf(await pia.get('/profile/uploader'), 200).profile as XmlObject
    expect(text(profile.quota)).toBe('1000000000')
    expect(text(((profile.permissions as XmlObject).file as XmlObject).create)).toBe('1')
    expect(text(((profile.permissions as XmlObject).instance as XmlObject).view)).toBe('0')
    await accessible(page, 'a new profile')

    // What cannot be loaded says why, with a way to try again.
    await page.goto(`${app.url}/console/people?tab=users&open=nobody`)
    await page.getByRole('alert').filter({ hasText: 'No user "nobody".' }).waitFor()
    await page.getByRole('button', { name: 'Try again' }).waitFor()
    await accessible(page, 'an unknown user')

    // Every access of the platform, in its own tab.
    await tabs(page).getByRole('link', { name: 'Accesses' }).click()
    await page.getByRole('heading', { name: 'Accesses on the platform' }).waitFor()
    await accessible(page, "the platform's accesses")

    // A user deleted after a confirmation.
    await page.goto(`${app.url}/console/people?tab=users&open=leaver`)
    await page.getByRole('button', { name: 'Delete this user…' }).click()
    await accessible(page, 'a deletion, asked')
    await page.getByRole('button', { name: 'Yes, delete the user' }).click()
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor()
    expect((await pia.get('/user/leaver')).status).toBe(404)
    await page.close()
  })

  it('offers a viewer nothing to change; the API refuses them too', async () => {
    const page = await chromium.signedIn('viv')
    await chromium.expectNotOffered(page, 'People', '/console/people', 'your profile does not let you manage people')
    await page.getByRole('link', { name: 'pia', exact: true }).waitFor()
    expect(await tabs(page).getByRole('link').allTextContents()).toEqual(['Users', 'Groups'])
    expect(await page.getByRole('heading', { name: 'New user' }).count()).toBe(0)
    await accessible(page, "a viewer's users")
    await page.getByRole('link', { name: 'pia', exact: true }).click()
    await page.getByRole('heading', { name: 'User pia' }).waitFor()
    await page.getByRole('heading', { name: 'Accesses of pia' }).waitFor()
    expect(await page.getByRole('button').filter({ hasNotText: 'Sign out' }).count()).toBe(0)
    expect(await page.getByRole('textbox').count()).toBe(0)
    await accessible(page, "a viewer on someone's page")
    await page.goto(`${app.url}/console/people?tab=groups`)
    await page.getByRole('link', { name: HOSTILE }).waitFor()
    expect(await page.getByRole('heading', { name: 'New group' }).count()).toBe(0)
    await accessible(page, "a viewer's groups")
    await page.close()
    // The API is the judge: the same requests with the viewer's key.
    expect((await viv.post('/user/pia/sign_in_link')).status).toBe(403)
    expect((await viv.post('/platform/default/groups', { form: { name: 'Mine' } })).status).toBe(403)
  })

  it('offers only the profiles one could give, and nothing on a stronger user', async () => {
    const page = await chromium.signedIn('manager')
    await page.goto(`${app.url}/console/people`)
    const profiles = page.getByRole('combobox', { name: 'Profile' })
    await profiles.waitFor()
    const offered = await profiles.getByRole('option').allTextContents()
    expect(offered).toContain('Viewer')
    expect(offered).not.toContain('Administrator')
    expect(offered).not.toContain('Publisher')
    await accessible(page, "a manager's users")
    // The API refuses what is not offered.
    const upstart = {
      username: 'upstart',
      email: 'upstart@example.org',
      password: PASSWORD,
      profile: 'default-administrator',
    }
    expect((await manager.post('/platform/default/users', { form: upstart })).status).toBe(403)

    // The platform administrator is stronger than the manager: shown, nothing offered.
    await page.goto(`${app.url}/console/people?tab=users&open=pia`)
    await page.getByText('This user holds permissions you do not').waitFor()
    expect(await page.getByRole('button', { name: 'Make a sign-in link' }).count()).toBe(0)
    expect(await page.getByRole('heading', { name: 'Details' }).count()).toBe(0)
    await accessible(page, 'a stronger user')
    expect((await pia.post('/user/admin/sign_in_link')).status).toBe(403)
    await page.close()
  })

  it('in French, with the keyboard only, and 320 px wide', async () => {
    const page = await chromium.signedIn('pia', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/people`)
    await page.getByRole('heading', { name: 'Personnes', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Nouvel utilisateur' }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the French users at 320 px')
    await page.screenshot({ path: join(SHOTS, 'people-fr-320.png'), fullPage: false })
    // From the groups tab's link, with the keyboard only: a group made and opened.
    await page
      .getByRole('navigation', { name: 'Personnes de la plateforme' })
      .getByRole('link', { name: 'Groupes' })
      .focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Nouveau groupe' }).waitFor()
    await page.getByRole('textbox', { name: 'Nom du groupe' }).focus()
    await page.keyboard.type('Équipe du soir')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Groupe Équipe du soir' }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a French group at 320 px')
    await page.close()
  })

  it('left no script error or dialog on any page', async () => {
    // The one refusal the tests ask for: an unknown user's page.
    expect(await chromium.problemsOnceClosed()).toEqual([refusedLoad(404)])
  })
})
