import { join } from 'node:path'
import { Webhook as Verifier } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOKS_NETWORK } from '../../../plugins/webhooks/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { createPlatform } from '../players/players.helpers.js'
import { type LoopbackNetwork, loopbackNetwork } from '../webhooks/loopback-network.js'
import { type Received, Receiver } from '../webhooks/receiver.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible } from './console.browser-helpers.js'

/**
 * The console's webhooks section in headless Chromium, for a platform administrator: a webhook added with its secret
 * shown once, a test delivered to a real receiver on 127.0.0.1 and shown in the log, a redelivery, a change, a new
 * secret (the receiver checks the signatures with each secret shown), a delete; each checked through the API. A
 * Publisher is not offered the section and the API refuses them. French, the keyboard, 320 px; axe on every state.
 * Deliveries go through a loopback-only network: dialling any other address fails the test.
 */

const HOSTILE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>`

/** The webhooks of the default platform, through the API. */
async function webhooksOf(client: DigestClient): Promise<XmlObject[]> {
  return list<XmlObject>(xmlOf(await client.get('/platform/default/webhooks'), 200).webhooks.webhook)
}

/** Whether `secret` verifies the signature of a delivery the receiver got. */
function signedWith(secret: string, received: Received): boolean {
  try {
    new Verifier(secret).verify(received.body, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

describe.skipIf(!HAS_CHROMIUM)('the webhooks section in Chromium', { timeout: 90_000 }, () => {
  let app: TestApp
  let receiver: Receiver
  let network: LoopbackNetwork
  let padmin: DigestClient
  let publisher: DigestClient
  let otherAdmin: DigestClient
  const chromium = new ConsoleChromium()

  beforeAll(async () => {
    receiver = await Receiver.start()
    app = await startApp({ config: { webhooks: { allow_private_networks: true, retry_delays: [1, 1] } } })
    network = loopbackNetwork()
    Object.assign(app.kernel.exposed(WEBHOOKS_NETWORK), { resolve: network.resolve, dial: network.dial })
    padmin = await userWithProfile(app, 'padmin', 'default-administrator')
    publisher = await userWithProfile(app, 'publisher', 'default-publisher')
    await createPlatform(app.client, 'Other')
    otherAdmin = await userWithProfile(app, 'otheradmin', 'other-administrator')
    await chromium.launch(app)
  }, 120_000)

  afterAll(async () => {
    await chromium.close(app)
    await receiver?.close()
  })

  afterEach(() => {
    expect(network.violations).toEqual([])
    // The refusals the tests provoke (a webhook without events, a Publisher's request) are the only console errors.
    expect(chromium.problemsBut(/status of (403|412)\b/)).toEqual([])
  })

  it('adds a webhook with its secret shown once, sends a test shown in the log, and sends it again', async () => {
    const page = await chromium.signedIn('padmin', { clipboard: true })
    await page.goto(`${app.url}/console`)
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No webhook yet: add one below.').waitFor()
    await accessible(page, 'no webhook yet')
    // One box per type the API lists (GET /platform/<p>/webhook_event_types), after "every event".
    const types = xmlOf(await padmin.get('/platform/default/webhook_event_types'), 200).webhook_event_types
    const boxes = page.getByRole('group', { name: 'Events to send' }).getByRole('checkbox')
    expect(await boxes.count()).toBe(1 + list(types.event_type).length)

    // A refused webhook: no event chosen (the API's 412 names the field).
    const url = `${receiver.url}/hooks`
    await page.getByRole('textbox', { name: 'Address (URL) that receives the events' }).fill(url)
    await page.getByRole('button', { name: 'Add the webhook' }).click()
    await page.getByRole('alert').filter({ hasText: 'events: is required' }).waitFor()
    await accessible(page, 'a refused webhook')

    await page.getByRole('textbox', { name: 'Description, for the administrators' }).fill(HOSTILE)
    await page.getByRole('checkbox', { name: /A file was encoded/ }).check()
    await page.getByRole('button', { name: 'Add the webhook' }).click()
    await page.getByRole('status').filter({ hasText: 'The webhook was added.' }).waitFor()
    const card = page.getByRole('region', { name: url })
    const secretBox = card.getByRole('textbox', { name: 'The signing secret' })
    const secret = await secretBox.inputValue()
    expect(secret).toMatch(/^whsec_/)
    expect(await card.getByText(HOSTILE, { exact: true }).count()).toBe(1)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    const [hook] = await webhooksOf(padmin)
    expect(text(hook!.url)).toBe(url)
    expect(list<XmlObject>((hook!.events as XmlObject).event).map(text)).toEqual(['file.encoded'])
    expect(text(hook!.description)).toBe(HOSTILE)
    await accessible(page, 'the secret shown once')

    await card.getByRole('button', { name: 'Copy the secret' }).click()
    await card.getByRole('status').filter({ hasText: 'Copied.' }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret)
    await card.getByRole('button', { name: 'I have copied it' }).click()
    await expect.poll(() => secretBox.count()).toBe(0)
    await page.reload()
    await card.waitFor()
    expect(await secretBox.count()).toBe(0)

    // A test, delivered to the receiver, signed with the secret shown, and its result in the log.
    await card.getByRole('button', { name: 'Send a test' }).click()
    const [test] = await receiver.waitFor('/hooks', 1, 'webhook.test')
    expect(signedWith(secret, test!)).toBe(true)
    await card
      .getByRole('status')
      .filter({ hasText: /Test event: the receiver answered HTTP 200 in \d+ ms\./ })
      .waitFor()
    const log = card.getByRole('region', { name: `Deliveries to ${url}, newest first` })
    await log.getByRole('status').filter({ hasText: 'Attempts 1 to 1 of 1' }).waitFor()
    const row = log.getByRole('row').nth(1)
    expect(await row.getByRole('rowheader').textContent()).toBe('webhook.test')
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      expect.any(String),
      'delivered',
      '1',
      '200',
      'ok',
      'Send again',
    ])
    await accessible(page, 'the delivery log after a test')
    await page.screenshot({ path: join(SHOTS, 'webhooks.png'), fullPage: true })

    await log.getByRole('button', { name: /^Send again: webhook\.test/ }).click()
    await receiver.waitFor('/hooks', 2, 'webhook.test')
    await log.getByRole('status').filter({ hasText: 'Attempts 1 to 2 of 2' }).waitFor()
    expect(await log.getByRole('row').nth(1).getByRole('cell').nth(2).textContent()).toBe('2')
    const id = text(hook!.id)
    const attempts = list<XmlObject>(xmlOf(await padmin.get(`/webhook/${id}/deliveries`), 200).deliveries.delivery)
    expect(attempts.map((attempt) => [text(attempt.attempt), text(attempt.status)])).toEqual([
      ['2', '200'],
      ['1', '200'],
    ])
    await accessible(page, 'the delivery log after a redelivery')
    await page.close()
  })

  it('changes a webhook, makes a new secret shown once, and deletes it after a confirmation', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console/webhooks`)
    const url = `${receiver.url}/hooks`
    const card = page.getByRole('region', { name: url })
    await card.getByRole('button', { name: 'Change' }).click()
    const form = card.getByRole('form', { name: 'Change the webhook' })
    await form.getByRole('checkbox', { name: /A file was uploaded/ }).check()
    await form.getByRole('checkbox', { name: 'Enabled: events are sent' }).uncheck()
    await accessible(page, 'a webhook being changed')
    await form.getByRole('button', { name: 'Save the changes' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await card.getByText('Disabled', { exact: true }).waitFor()
    const [hook] = await webhooksOf(padmin)
    expect(text(hook!.enabled)).toBe('0')
    expect(list<XmlObject>((hook!.events as XmlObject).event).map(text)).toEqual(['file.encoded', 'file.uploaded'])

    await card.getByRole('button', { name: 'New secret' }).click()
    await card.getByRole('alertdialog').waitFor()
    await accessible(page, 'the new secret confirmation')
    await card.getByRole('button', { name: 'Yes, make a new secret' }).click()
    const secret = await card.getByRole('textbox', { name: 'The signing secret' }).inputValue()
    expect(secret).toMatch(/^whsec_/)
    await accessible(page, 'a new secret shown once')
    // A test is sent even to a disabled webhook, signed with the new secret; a refusal is what the log says.
    receiver.answer('/hooks', 503)
    await card.getByRole('button', { name: 'Send a test' }).click()
    const tests = await receiver.waitFor('/hooks', 3, 'webhook.test')
    expect(signedWith(secret, tests[2]!)).toBe(true)
    await card
      .getByRole('status')
      .filter({ hasText: /Test event: the receiver answered HTTP 503 in \d+ ms\./ })
      .waitFor()
    await accessible(page, 'a test the receiver refused')

    await card.getByRole('button', { name: 'Delete…' }).click()
    await card
      .getByRole('alertdialog', { name: `Delete the webhook to ${url}? Nothing will be sent there any more.` })
      .waitFor()
    await accessible(page, 'the delete confirmation')
    await card.getByRole('button', { name: 'Yes, delete it' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `The webhook to ${url} was deleted.` })
      .waitFor()
    await page.getByText('No webhook yet: add one below.').waitFor()
    expect(await webhooksOf(padmin)).toEqual([])
    await accessible(page, 'after a delete')
    await page.close()
  })

  it('in French, with the keyboard only, and 320 px wide', async () => {
    const page = await chromium.signedIn('padmin', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/webhooks`)
    await page.getByRole('heading', { name: 'Un nouveau webhook' }).waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the French webhooks at 320 px')

    await page.getByRole('textbox', { name: 'Adresse (URL) qui reçoit les événements' }).focus()
    await page.keyboard.type(`${receiver.url}/fr`)
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Space')
    expect(await page.getByRole('checkbox', { name: /Tous les événements/ }).isChecked()).toBe(true)
    // Back to the address, where Enter submits the form.
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'Le webhook a été ajouté.' }).waitFor()
    await page.getByRole('textbox', { name: 'Le secret de signature' }).scrollIntoViewIfNeeded()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a French webhook added at 320 px')
    await page.screenshot({ path: join(SHOTS, 'webhooks-fr-320.png'), fullPage: false })
    const hook = (await webhooksOf(padmin)).find((webhook) => text(webhook.url) === `${receiver.url}/fr`)
    expect(list<XmlObject>((hook!.events as XmlObject).event).map(text)).toEqual(['*'])
    await page.close()
  })

  it("shows another platform's administrator their own webhooks only", async () => {
    const [hook] = await webhooksOf(padmin)
    const page = await chromium.signedIn('otheradmin')
    await page.goto(`${app.url}/console/webhooks`)
    await page.getByText('No webhook yet: add one below.').waitFor()
    expect(await page.getByText(text(hook!.url)).count()).toBe(0)
    await accessible(page, "another platform's webhooks")
    expect((await otherAdmin.get(`/webhook/${text(hook!.id)}/deliveries`)).status).toBe(404)
    await page.close()
  })

  it('is not offered to a Publisher, and the API refuses them', async () => {
    const page = await chromium.signedIn('publisher')
    const why = 'Webhooks are managed by the administrators of the platform'
    await chromium.expectNotOffered(page, 'Webhooks', '/console/webhooks', why)
    expect(await page.getByRole('button', { name: 'Add the webhook' }).count()).toBe(0)
    await accessible(page, 'webhooks, not for a Publisher')
    expect((await publisher.get('/platform/default/webhooks')).status).toBe(403)
    await page.close()
  })
})
