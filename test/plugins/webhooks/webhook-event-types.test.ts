import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENTS } from '../../../plugins/webhooks/webhook-events.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { expectError, xmlOf } from '../../helpers/answers.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'

/**
 * `GET /platform/<slug>/webhook_event_types` (decision 0264): the event types a webhook may subscribe to, for whoever
 * manages the platform's webhooks; 401, 403 to who only sees the platform, 404 for another platform's administrator
 * and an unknown platform; paged with Range like every list.
 */

let app: TestApp
let padmin: DigestClient
let plain: DigestClient
let otherAdmin: DigestClient

beforeAll(async () => {
  // Loopback receivers allowed: the webhook made below is checked, never dialled.
  app = await startApp({ config: { webhooks: { allow_private_networks: true } } })
  xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201)
  padmin = await userWithFlags(app, 'padmin', ['platform.view', 'platform.edit'])
  plain = await userWithFlags(app, 'plain', ['platform.view'])
  otherAdmin = await userWithFlags(app, 'otheradmin', ['platform.view', 'platform.edit'], 'other')
}, 60_000)

afterAll(async () => {
  await app?.close()
})

const types = (node: XmlObject): XmlObject[] => list<XmlObject>(node.event_type)

describe('GET /platform/<slug>/webhook_event_types', () => {
  it('lists every type a webhook may subscribe to, what it announces, and whether * includes it', async () => {
    const res = await padmin.get('/platform/default/webhook_event_types')
    const doc = xmlOf(res, 200).webhook_event_types as XmlObject
    expect(doc['@href']).toBe(`${app.url}/platform/default/webhook_event_types`)
    const listed = types(doc).map((type) => [text(type.name), text(type.description), text(type.in_all)])
    const expected = Object.entries(WEBHOOK_EVENTS)
      .filter(([name]) => name !== 'webhook.test')
      .map(([name, description]) => [name, description, name === 'file.encoding_progress' ? '0' : '1'])
    expect(listed).toEqual(expected)
    expect(res.headers['content-range']).toBe(`entities 0-${expected.length - 1}/${expected.length}`)
    // Every type listed is accepted by a webhook's `events`.
    const made = await padmin.post('/platform/default/webhooks', {
      form: { url: 'http://127.0.0.1:9/never-dialled', events: listed.map(([name]) => name).join(',') },
    })
    expect(made.status).toBe(201)
  })

  it('pages with Range', async () => {
    const res = await padmin.get('/platform/default/webhook_event_types', { headers: { Range: 'entities=1-2' } })
    const names = types(xmlOf(res, 200).webhook_event_types as XmlObject).map((type) => text(type.name))
    expect(names).toEqual(Object.keys(WEBHOOK_EVENTS).slice(1, 3))
    expect(res.headers['content-range']).toMatch(/^entities 1-2\/\d+$/)
  })

  it('answers 401 without credentials, 403 to who only sees the platform, 404 across platforms', async () => {
    expect((await app.clientFor('nobody', 'x'.repeat(64)).get('/platform/default/webhook_event_types')).status).toBe(
      401,
    )
    expectError(
      await plain.get('/platform/default/webhook_event_types'),
      403,
      'This needs the "platform.edit" permission.',
    )
    // The other platform's administrator does not see this platform; their own answers.
    expectError(await otherAdmin.get('/platform/default/webhook_event_types'), 404, 'No platform "default".')
    expect((await otherAdmin.get('/platform/other/webhook_event_types')).status).toBe(200)
    expectError(await padmin.get('/platform/nowhere/webhook_event_types'), 404, 'No platform "nowhere".')
    // The installation administrator, every platform's.
    expect((await app.client.get('/platform/other/webhook_event_types')).status).toBe(200)
  })
})
