import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import {
  createMedia,
  createRole,
  createStream,
  grant,
  playersOf,
  published,
  uploadDocument,
} from '../resources/resources.helpers.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible, refusedLoad } from './console.browser-helpers.js'

/**
 * The console's publishing section in headless Chromium: a platform administrator makes a media site, a nested
 * stream and a channel with its RSS feed, edits a published resource and sees its views, makes a widget and copies
 * its iframe code and a share link with a start time, each checked through the API; a Publisher and a Viewer are
 * offered only what their profile may do (and the API refuses the rest); names holding markup shown as text; French;
 * the keyboard; 320 px. axe on every state.
 */

const HOSTILE = `News <script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>`

/** The view URL a player page gives its script (what a first play POSTs). */
async function viewUrlOf(app: TestApp, resource: string): Promise<string> {
  const page = await (await fetch(`${app.url}/player/${resource}`)).text()
  const json = /<script type="application\/json" id="player-config">([^<]*)<\/script>/.exec(page)
  if (!json) throw new Error(`no player settings in ${page}`)
  return (JSON.parse(json[1]!) as { views: string }).views
}

describe.skipIf(!HAS_CHROMIUM)('the publishing section in Chromium', { timeout: 120_000 }, () => {
  let app: TestApp
  let chief: DigestClient
  let val: DigestClient
  const chromium = new ConsoleChromium({ height: 900, clipboard: true })

  beforeAll(async () => {
    app = await startApp()
    // The default profile of a new user: Administrator of the platform.
    chief = await app.createUser({ username: 'chief' })
    await userWithProfile(app, 'pat', 'default-publisher')
    val = await userWithProfile(app, 'val', 'default-viewer')
    await chromium.launch(app)
  }, 120_000)

  afterAll(() => chromium.close(app))

  const get = async (path: string): Promise<XmlObject> => xmlOf(await app.client.get(path), 200)

  it('makes a site, a nested stream and a channel; edits a resource, sees its views; a widget and its codes', async () => {
    const page = await chromium.signedIn('chief')
    await page.goto(`${app.url}/console`)
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Publishing' }).click()
    await page.getByText('No media site yet.').waitFor()
    await accessible(page, 'no media site')

    // A site, its name holding markup.
    const form = page.getByRole('form', { name: 'New media site' })
    await form.getByRole('textbox', { name: 'Name' }).fill(HOSTILE)
    await form.getByRole('textbox', { name: 'Domain' }).fill('News.Example.org')
    await form.getByRole('textbox', { name: 'Contact e-mail' }).fill('desk@example.org')
    await form.getByRole('button', { name: 'Create the site' }).click()
    await page.getByRole('heading', { name: `Media site ${HOSTILE}` }).waitFor()
    const sites = list<XmlObject>((await get('/platform/default/medias')).medias.media)
    expect(sites.map((site) => [text(site.name), text(site.domain)])).toEqual([[HOSTILE, 'news.example.org']])
    const media = text(sites[0]!.slug)
    expect(new URL(page.url()).searchParams.get('media')).toBe(media)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await page.getByText('No stream yet.').waitFor()
    await accessible(page, 'a new site')

    // A refusal of the API, said where the change was asked; the site unchanged.
    await page.getByRole('button', { name: `Change the site ${HOSTILE}` }).click()
    await page
      .getByRole('form', { name: 'Change the site' })
      .getByRole('textbox', { name: 'Domain' })
      .fill('http://x.org')
    await page.getByRole('button', { name: 'Save' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /^Not done: .*domain_name: must be a host name/ })
      .waitFor()
    await accessible(page, 'a change refused')
    await page.getByRole('button', { name: 'Cancel' }).click()
    expect(text((await get(`/media/${media}`)).media.domain_name)).toBe('news.example.org')

    // A stream, then one inside it: a tree; hidden unless told.
    const streamForm = page.getByRole('form', { name: 'New stream' })
    await streamForm.getByRole('textbox', { name: 'Title' }).fill('Lectures')
    expect(await streamForm.getByRole('combobox', { name: 'Visibility' }).inputValue()).toBe('hidden')
    await streamForm.getByRole('button', { name: 'Create the stream' }).click()
    await page.getByRole('link', { name: 'Lectures' }).waitFor()
    await streamForm.getByRole('textbox', { name: 'Title' }).fill('Week 1')
    await streamForm.getByRole('combobox', { name: 'Place' }).selectOption({ label: 'Lectures' })
    await streamForm.getByRole('combobox', { name: 'Visibility' }).selectOption({ label: 'Visible' })
    await streamForm.getByRole('button', { name: 'Create the stream' }).click()
    const lectures = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Lectures' }) })
    await lectures.getByRole('link', { name: 'Week 1' }).waitFor()
    const streams = list<XmlObject>((await get(`/media/${media}/streams`)).streams.stream)
    expect(streams.map((s) => [text(s.title), text(s.visibility), text(s.parent_stream)])).toEqual([
      ['Lectures', 'hidden', ''],
      ['Week 1', 'visible', text(streams[0]!.slug)],
    ])
    await accessible(page, 'a stream inside a stream')

    // A syndication channel: its RSS feed, taken offline, deleted.
    const channelForm = page.getByRole('form', { name: 'New channel' })
    await channelForm.getByRole('textbox', { name: 'Channel name' }).fill('Podcast')
    await channelForm.getByRole('combobox', { name: 'Type' }).selectOption('syndication')
    await channelForm.getByRole('button', { name: 'Create the channel' }).click()
    const feed = page.getByRole('link', { name: 'RSS feed of Podcast' })
    await feed.waitFor()
    const channels = list<XmlObject>((await get(`/media/${media}/channels`)).channels.channel)
    expect(channels.map((c) => [text(c.name), text(c.type), text(c.is_online)])).toEqual([
      ['Web', 'web', 'true'],
      ['Widget', 'widget', 'true'],
      ['Podcast', 'syndication', 'true'],
    ])
    const podcast = text(channels[2]!.slug)
    expect(await feed.getAttribute('href')).toBe(`${app.url}/media/${media}/channel/${podcast}/feed.rss`)
    expect((await fetch((await feed.getAttribute('href'))!)).status).toBe(200)
    await page.getByRole('button', { name: 'Change the channel Podcast' }).click()
    await page
      .getByRole('form', { name: 'Change the channel Podcast' })
      .getByRole('checkbox', { name: 'Online' })
      .uncheck()
    await page.getByRole('form', { name: 'Change the channel Podcast' }).getByRole('button', { name: 'Save' }).click()
    await feed.waitFor({ state: 'detached' })
    expect(text((await get(`/media/${media}/channel/${podcast}`)).channel.is_online)).toBe('false')
    await page.getByRole('button', { name: 'Delete the channel Podcast' }).click()
    await accessible(page, 'a deletion asked')
    await page.getByRole('group', { name: 'Delete the channel Podcast' }).getByRole('button', { name: 'Yes' }).click()
    await page.getByRole('button', { name: 'Change the channel Podcast' }).waitFor({ state: 'detached' })
    expect((await app.client.get(`/media/${media}/channel/${podcast}`)).status).toBe(404)

    // The inner stream: renamed; nothing published yet, the library's Publish… named.
    await lectures.getByRole('link', { name: 'Week 1' }).click()
    await page.getByRole('heading', { name: 'Stream Week 1' }).waitFor()
    await page.getByText('Nothing published in this stream yet.').waitFor()
    await page.getByRole('button', { name: 'Rename Week 1' }).click()
    await page.getByRole('form', { name: 'Rename the stream' }).getByRole('textbox', { name: 'Title' }).fill('Week one')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Stream Week one' }).waitFor()
    const week = text(streams[1]!.slug)
    expect(text((await get(`/stream/${week}`)).stream.title)).toBe('Week one')
    await accessible(page, 'a stream, nothing published')

    // Published through the API (the library's Publish… is tested with the library), hidden as it does by default.
    const resource = await published(chief, week, {
      file: await uploadDocument(chief, 'notes.pdf'),
      title: 'Notes',
      visibility: 'hidden',
    })
    await page.reload()
    await page.getByRole('link', { name: 'Notes' }).click()
    await page.getByRole('heading', { name: 'Resource Notes' }).waitFor()
    await page.getByText('No widget yet.').waitFor()
    await accessible(page, 'a resource without widgets')

    // Edited: visible, a description, a title with markup (shown as text).
    await page.getByRole('button', { name: 'Change Notes' }).click()
    const edit = page.getByRole('form', { name: 'Change the resource' })
    await edit.getByRole('textbox', { name: 'Title' }).fill(`Notes ${HOSTILE}`)
    await edit.getByRole('textbox', { name: 'Description' }).fill('Week one, <b>all</b> of it')
    await edit.getByRole('combobox', { name: 'Visibility' }).selectOption({ label: 'Visible' })
    await edit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: `Resource Notes ${HOSTILE}` }).waitFor()
    const info = (await get(`/resource/${resource}`)).resource as XmlObject
    expect([text(info.title), text(info.description), text(info.visibility)]).toEqual([
      `Notes ${HOSTILE}`,
      'Week one, <b>all</b> of it',
      'visible',
    ])
    await page.getByText('Week one, <b>all</b> of it').waitFor()
    expect(await page.evaluate('window.__pwned')).toBeUndefined()

    // A view, counted by the player (the stream above is hidden: shown through the stream made visible first).
    expect(
      (await app.client.put(`/stream/${text(streams[0]!.slug)}`, { form: { visibility: 'visible' } })).status,
    ).toBe(201)
    expect((await fetch(await viewUrlOf(app, resource), { method: 'POST' })).status).toBe(204)
    // The counter writes views in batches: once the API counts it, the page shows it.
    await waitFor(async () => text(((await get(`/resource/${resource}`)).resource as XmlObject).views) === '1', {
      message: 'the view counted',
    })
    await page.reload()
    await page.getByRole('definition').filter({ hasText: /^1$/ }).waitFor()

    // The share link, from 1:30.
    const player = `${app.url}/player/${resource}`
    expect(playersOf(info)).toEqual([['default', player]])
    await page.getByRole('textbox', { name: 'Start at' }).fill('1:30')
    expect(await page.getByRole('textbox', { name: 'Link to the player' }).inputValue()).toBe(`${player}?t=90`)
    await page.getByRole('button', { name: 'Copy the share link' }).click()
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${app.url}/player/${resource}?t=90`)
    await page.getByRole('textbox', { name: 'Start at' }).fill('1 minute')
    await page.getByText('Write seconds (90) or minutes and seconds (1:30).').waitFor()
    await accessible(page, 'a start time not understood')
    await page.getByRole('textbox', { name: 'Start at' }).fill('')

    // A widget in the Dark theme; its iframe code copied is the API's.
    const widgetForm = page.getByRole('form', { name: 'New widget' })
    await widgetForm.getByRole('textbox', { name: 'Widget name' }).fill('Home page')
    await widgetForm.getByRole('combobox', { name: 'Player theme' }).selectOption({ label: 'Dark' })
    await widgetForm.getByRole('button', { name: 'Create the widget' }).click()
    await page.getByRole('button', { name: 'Copy the iframe code of Home page' }).click()
    await page.getByRole('status').filter({ hasText: 'Copied' }).first().waitFor()
    const widgets = list<XmlObject>((await get(`/resource/${resource}/widgets`)).widgets.widget)
    const widget = text(widgets[0]!.slug)
    const widgetInfo = (await get(`/resource/${resource}/widgets/${widget}`)).widget as XmlObject
    expect(text(widgetInfo.size)).toBe('640x360')
    expect(String(widgetInfo.player_theme['@href'])).toMatch(/\/player_theme\/default-dark$/)
    const iframe = text((widgetInfo.embeds as XmlObject).iframe)
    expect(iframe).toContain(`src="${app.url}/embed/${widget}"`)
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(iframe)
    expect(await page.getByRole('textbox', { name: 'Embed code of Home page (script)' }).inputValue()).toBe(
      text((widgetInfo.embeds as XmlObject).javascript),
    )
    await accessible(page, 'a widget and its codes')
    await page.screenshot({ path: join(SHOTS, 'publishing.png'), fullPage: true })

    // The widget resized, then deleted.
    await page.getByRole('button', { name: 'Change the widget Home page' }).click()
    await page
      .getByRole('form', { name: 'Change the widget Home page' })
      .getByRole('textbox', { name: 'Size' })
      .fill('300x250')
    await page.getByRole('form', { name: 'Change the widget Home page' }).getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Home page (300x250)' }).waitFor()
    expect(text(((await get(`/resource/${resource}/widgets/${widget}`)).widget as XmlObject).size)).toBe('300x250')
    await page.getByRole('button', { name: 'Delete the widget Home page' }).click()
    await page.getByRole('button', { name: 'Yes' }).click()
    await page.getByText('No widget yet.').waitFor()
    expect((await app.client.get(`/resource/${resource}/widgets/${widget}`)).status).toBe(404)

    // Unpublished, then the stream and the site deleted, each after a confirmation.
    await page.getByRole('button', { name: `Unpublish Notes ${HOSTILE}` }).click()
    await page.getByRole('button', { name: 'Yes' }).click()
    await page.getByRole('heading', { name: 'Stream Week one' }).waitFor()
    expect((await app.client.get(`/resource/${resource}`)).status).toBe(404)
    await page.getByRole('button', { name: 'Delete the stream Week one' }).click()
    await page.getByRole('button', { name: 'Yes' }).click()
    await page.getByRole('heading', { name: `Media site ${HOSTILE}` }).waitFor()
    expect((await app.client.get(`/stream/${week}`)).status).toBe(404)
    await page.getByRole('button', { name: `Delete the site ${HOSTILE}` }).click()
    await page.getByRole('button', { name: 'Yes' }).click()
    await page.getByText('No media site yet.').waitFor()
    expect((await app.client.get(`/media/${media}`)).status).toBe(404)
    await page.close()
  })

  it('offers a Viewer nothing to change and a Publisher no new site; the API refuses what is not theirs', async () => {
    const media = await createMedia(chief, 'Campus')
    const stream = await createStream(chief, media, 'Talks')
    const resource = await published(chief, stream, {
      file: await uploadDocument(chief, 'talk.pdf'),
      title: 'Talk',
      visibility: 'visible',
    })
    const watcher = await createRole(app, 'Watcher', ['media.view', 'stream.view', 'resource.view'])
    await grant(app, 'pat', 'media', media, watcher)
    await grant(app, 'val', 'media', media, watcher)

    const viewer = await chromium.signedIn('val')
    await viewer.goto(`${app.url}/console/publishing`)
    await viewer.getByRole('link', { name: 'Campus' }).click()
    await viewer.getByRole('link', { name: 'Talks' }).waitFor()
    await viewer.getByText('Web', { exact: true }).waitFor()
    expect(
      await viewer
        .getByRole('button')
        .filter({ hasText: /Change|Delete|Create/ })
        .count(),
    ).toBe(0)
    expect(await viewer.getByRole('heading', { name: /^New / }).count()).toBe(0)
    await accessible(viewer, 'a site, for a viewer')
    await viewer.goto(`${app.url}/console/publishing?resource=${resource}`)
    await viewer.getByRole('textbox', { name: 'Link to the player' }).waitFor()
    expect(
      await viewer
        .getByRole('button')
        .filter({ hasText: /Change|Unpublish|Create/ })
        .count(),
    ).toBe(0)
    await accessible(viewer, 'a resource, for a viewer')
    expect((await val.delete(`/media/${media}`)).status).toBe(403)
    expect((await val.post(`/media/${media}/streams`, { form: { title: 'x', visibility: 'visible' } })).status).toBe(
      403,
    )

    const publisher = await chromium.signedIn('pat')
    await publisher.goto(`${app.url}/console/publishing`)
    await publisher.getByRole('link', { name: 'Campus' }).waitFor()
    expect(await publisher.getByRole('heading', { name: 'New media site' }).count()).toBe(0)
    await publisher.getByRole('link', { name: 'Campus' }).click()
    await publisher.getByRole('button', { name: 'Change the site Campus' }).click()
    await publisher.getByRole('form', { name: 'Change the site' }).getByRole('textbox', { name: 'Name' }).fill('Mine')
    await publisher.getByRole('button', { name: 'Save' }).click()
    await publisher
      .getByRole('alert')
      .filter({ hasText: 'Not done: This needs the "media.edit" permission.' })
      .waitFor()
    await accessible(publisher, 'a change the API refused')
    expect(text((await get(`/media/${media}`)).media.name)).toBe('Campus')
    await viewer.close()
    await publisher.close()
  })

  it('speaks French at 320 px, says why a site cannot be shown, and copies with the keyboard', async () => {
    const media = await createMedia(chief, 'Radio')
    const stream = await createStream(chief, media, 'Émissions')
    const resource = await published(chief, stream, {
      file: await uploadDocument(chief, 'emission.pdf'),
      title: 'Émission 1',
      visibility: 'visible',
    })
    const page = await chromium.signedIn('chief', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/publishing?media=nope`)
    await page.getByRole('alert').filter({ hasText: 'Le chargement n\'a pas abouti : No media "nope".' }).waitFor()
    await page.getByRole('button', { name: 'Réessayer' }).waitFor()
    await accessible(page, 'an unknown site, in French')

    await page.goto(`${app.url}/console/publishing?media=${media}`)
    await page.getByRole('heading', { name: 'Site de médias Radio' }).waitFor()
    await page.getByRole('form', { name: 'Nouveau flux' }).waitFor()
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a site, in French at 320 px')
    await page.screenshot({ path: join(SHOTS, 'publishing-fr-320.png'), fullPage: false })

    await page.goto(`${app.url}/console/publishing?resource=${resource}`)
    await page.getByRole('heading', { name: 'Ressource Émission 1' }).waitFor()
    await page.getByRole('textbox', { name: 'Commencer à' }).focus()
    await page.keyboard.type('75')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Copier le lien de partage')
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'Copié' }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${app.url}/player/${resource}?t=75`)
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a resource, in French at 320 px')
    await page.close()
  })

  it('left no script error or dialog on any page', async () => {
    // The refusals the tests ask for: a wrong domain (412), the publisher's change (403), an unknown site (404).
    expect(await chromium.problemsOnceClosed()).toEqual([refusedLoad(412), refusedLoad(403), refusedLoad(404)])
  })
})
