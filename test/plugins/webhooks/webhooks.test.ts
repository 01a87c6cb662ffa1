import { Webhook as Verifier } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOKS_NETWORK } from '../../../plugins/webhooks/index.js'
import { fileQueries } from '../../../plugins/files/index.js'
import { WebhookEntity } from '../../../plugins/webhooks/webhook.entity.js'
import { WebhookMessageEntity } from '../../../plugins/webhooks/webhook-message.entity.js'
import { transaction } from '../../../src/kernel/index.js'
import { type TestApp } from '../../helpers/app.js'
import { INVALID, expectError, xmlOf } from '../../helpers/answers.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { scrapeMetrics } from '../../helpers/metrics.js'
import { freePort } from '../../helpers/redis-server.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { makeMedia, startEncodingApp, uploadMedia } from '../encoding/encoding.helpers.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'
import { makePlace, uploadFile } from '../widgets/widgets.helpers.js'
import { type LoopbackNetwork, loopbackNetwork } from './loopback-network.js'
import { type Received, Receiver } from './receiver.js'

/**
 * Signed webhooks (issue 19) through real HTTP: a real receiver on 127.0.0.1, deliveries made by
 * the job queue, signatures checked with the `standardwebhooks` package. Deliveries go through a
 * loopback-only network: a dial of any other address fails the test (`violations`).
 */

let app: TestApp
let receiver: Receiver
let network: LoopbackNetwork
let metricsUrl: string
/** An administrator of the `default` platform (profile flag platform.edit), a plain user, an administrator of `other`. */
let padmin: DigestClient
let plain: DigestClient
let otherAdmin: DigestClient

beforeAll(async () => {
  receiver = await Receiver.start()
  const metricsPort = await freePort()
  app = await startEncodingApp({
    config: {
      webhooks: { allow_private_networks: true, retry_delays: [1, 1], progress_interval: 1 },
      metrics: { port: metricsPort, host: '127.0.0.1' },
    },
  })
  metricsUrl = (await app.kernel.serveMetrics())!
  network = loopbackNetwork()
  Object.assign(app.kernel.exposed(WEBHOOKS_NETWORK), { resolve: network.resolve, dial: network.dial })
  xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201)
  padmin = await userWithFlags(app, 'padmin', ['platform.view', 'platform.edit'])
  plain = await userWithFlags(app, 'plain', ['platform.view'])
  otherAdmin = await userWithFlags(app, 'otheradmin', ['platform.view', 'platform.edit', 'file.create'], 'other')
}, 60_000)

afterAll(async () => {
  await app?.close()
  await receiver?.close()
})

afterEach(() => {
  expect(network.violations).toEqual([])
})

/** Creates a webhook as `client` and answers its id, secret and answer. */
async function createHook(
  client: DigestClient,
  path: string,
  events: string,
  platform = 'default',
): Promise<{ id: string; secret: string; node: XmlObject }> {
  const res = await client.post(`/platform/${platform}/webhooks`, {
    form: { url: `${receiver.url}${path}`, events, description: `to ${path}` },
  })
  const node = xmlOf(res, 201).webhook as XmlObject
  return { id: text(node.id), secret: text(node.secret), node }
}

/** The delivery attempts of a webhook, newest first. */
async function deliveries(id: string): Promise<XmlObject[]> {
  return list<XmlObject>(xmlOf(await app.client.get(`/webhook/${id}/deliveries`), 200).deliveries.delivery)
}

const headersOf = (r: Received): Record<string, string> => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
})

describe('subscriptions', () => {
  it('are created with 201 and the secret, shown this once; info and lists never show it', async () => {
    const { id, secret, node } = await createHook(padmin, '/created', 'file.encoded, resource.created')
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24)
    expect(node['@href']).toBe(`${app.url}/webhook/${id}`)
    expect(text(node.url)).toBe(`${receiver.url}/created`)
    expect(list(node.events.event).map(text)).toEqual(['file.encoded', 'resource.created'])
    expect(text(node.enabled)).toBe('1')
    expect(text(node.description)).toBe('to /created')
    expect(node.platform).toEqual({ '@href': `${app.url}/platform/default` })
    expect(text(node.created_at)).not.toBe('')

    const info = xmlOf(await padmin.get(`/webhook/${id}`), 200).webhook as XmlObject
    expect(info).not.toHaveProperty('secret')
    expect(text(info.url)).toBe(`${receiver.url}/created`)
    const listed = list<XmlObject>(xmlOf(await padmin.get('/platform/default/webhooks'), 200).webhooks.webhook)
    expect(listed.map((w) => text(w.id))).toContain(id)
    expect(listed.every((w) => !('secret' in w))).toBe(true)
    // Range pagination, as every list of the contract.
    await createHook(padmin, '/second', '*')
    const first = await padmin.get('/platform/default/webhooks', { headers: { range: 'entities=0-0' } })
    expect(list(xmlOf(first, 200).webhooks.webhook)).toHaveLength(1)
    expect(first.headers['content-range']).toMatch(/^entities 0-0\/\d+$/)
  })

  it('take events repeated (events=a&events=b, or events[]), and are changed, then deleted', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const url = encodeURIComponent(`${receiver.url}/changed`)
    const bracketed = await padmin.post('/platform/default/webhooks', {
      headers: form,
      body: `url=${url}&events[]=file.uploaded&events[]=file.deleted,user.created`,
    })
    expect(list(xmlOf(bracketed, 201).webhook.events.event).map(text)).toEqual([
      'file.uploaded',
      'file.deleted',
      'user.created',
    ])
    const res = await padmin.post('/platform/default/webhooks', {
      headers: form,
      body: `url=${url}&events=file.uploaded&events=file.deleted&description=plain`,
    })
    expect(list(xmlOf(res, 201).webhook.events.event).map(text)).toEqual(['file.uploaded', 'file.deleted'])
    const id = text(xmlOf(res, 201).webhook.id)
    const put = xmlOf(await padmin.put(`/webhook/${id}`, { form: { events: '*', enabled: '0' } }), 200).webhook
    expect(list(put.events.event).map(text)).toEqual(['*'])
    expect(text(put.enabled)).toBe('0')
    expect(put).not.toHaveProperty('secret')
    expect((await padmin.delete(`/webhook/${id}`)).status).toBe(204)
    expectError(await padmin.get(`/webhook/${id}`), 404, `No webhook "${id}".`)
  })

  it('refuse bad fields with 412 naming each', async () => {
    expectError(await padmin.post('/platform/default/webhooks', { form: {} }), 412, INVALID, {
      url: 'is required',
      events: 'is required',
    })
    const bad = await padmin.post('/platform/default/webhooks', {
      form: { url: 'ftp://example.org/x', events: 'file.encoded,file.exploded' },
    })
    expect(bad.status).toBe(412)
    expect(bad.body).toContain('name="events"><![CDATA[has unknown event "file.exploded"')
    expect(bad.body).toContain('name="url"><![CDATA[must start with https://')
    const userinfo = await padmin.post('/platform/default/webhooks', {
      form: { url: `http://user:pass@127.0.0.1:1/x`, events: '*' },
    })
    expect(userinfo.status).toBe(412)
    expect(userinfo.body).toContain('name="url"')
    expectError(
      await padmin.post('/platform/default/webhooks', {
        form: { url: `${receiver.url}/x`, events: '*', enabled: 'maybe' },
      }),
      412,
      INVALID,
      { enabled: 'must be 0 or 1' },
    )
    const { id } = await createHook(padmin, '/validated', '*')
    expectError(await padmin.put(`/webhook/${id}`, { form: { url: '' } }), 412, INVALID, { url: 'cannot be empty' })
  })

  it('are managed by platform administrators only: 401, 403, and 404 across platforms', async () => {
    const { id } = await createHook(padmin, '/guarded', '*')
    const anonymous = app.clientFor('nobody', 'x'.repeat(64))
    expect((await anonymous.get('/platform/default/webhooks')).status).toBe(401)
    expect((await plain.get('/platform/default/webhooks')).status).toBe(403)
    expect(
      (await plain.post('/platform/default/webhooks', { form: { url: `${receiver.url}/p`, events: '*' } })).status,
    ).toBe(403)
    expect((await plain.get(`/webhook/${id}`)).status).toBe(403)
    // The other platform's administrator does not see this platform, nor its webhooks.
    expect((await otherAdmin.get('/platform/default/webhooks')).status).toBe(404)
    for (const [method, path] of [
      ['GET', `/webhook/${id}`],
      ['PUT', `/webhook/${id}`],
      ['DELETE', `/webhook/${id}`],
      ['POST', `/webhook/${id}/rotate_secret`],
      ['POST', `/webhook/${id}/test`],
      ['GET', `/webhook/${id}/deliveries`],
    ] as const) {
      expect((await otherAdmin.request(method, path, { form: {} })).status, `${method} ${path}`).toBe(404)
    }
    expectError(await padmin.get('/webhook/NoSuchWebhook000'), 404, 'No webhook "NoSuchWebhook000".')
    expectError(await padmin.get('/webhook/abc'), 404, 'No webhook "abc".')
    // The installation administrator manages every platform's.
    expect((await app.client.get(`/webhook/${id}`)).status).toBe(200)
    expect((await otherAdmin.get('/platform/other/webhooks')).status).toBe(200)
  })
})

describe('deliveries', () => {
  it('webhook.test is POSTed signed as Standard Webhooks says', async () => {
    const { id, secret } = await createHook(padmin, '/signed', 'file.encoded')
    const queued = xmlOf(await padmin.post(`/webhook/${id}/test`), 202).webhook_event as XmlObject
    const eventId = text(queued.event_id)
    expect(eventId).toMatch(/^msg_[A-Za-z0-9_-]{22}$/)
    const [got] = await receiver.waitFor('/signed', 1)
    expect(got!.headers['content-type']).toBe('application/json')
    expect(got!.headers['webhook-id']).toBe(eventId)
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
    expect(String(got!.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(new Verifier(secret).verify(got!.body, headersOf(got!))).toMatchObject({ type: 'webhook.test' })
    // Another secret, or a byte changed, fails the check.
    expect(() =>
      new Verifier(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, headersOf(got!)),
    ).toThrow()
    expect(() =>
      new Verifier(secret).verify(got!.body.replace('webhook.test', 'webhook.tesT'), headersOf(got!)),
    ).toThrow()
    expect(got!.event).toEqual({
      type: 'webhook.test',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: {
        platform: { slug: 'default', href: `${app.url}/platform/default` },
        webhook: { id, href: `${app.url}/webhook/${id}` },
      },
    })
    await waitFor(async () => (await deliveries(id)).length === 1)
    const [delivery] = await deliveries(id)
    expect(text(delivery!.event_id)).toBe(eventId)
    expect(text(delivery!.type)).toBe('webhook.test')
    expect(text(delivery!.attempt)).toBe('1')
    expect(text(delivery!.status)).toBe('200')
    expect(text(delivery!.event_state)).toBe('delivered')
    expect(text(delivery!.response)).toBe('ok')
    expect(Number(text(delivery!.duration))).toBeGreaterThanOrEqual(0)
  })

  it('are retried after a 500 with the same webhook-id, then listed attempt by attempt', async () => {
    const { id } = await createHook(padmin, '/flaky', 'file.encoded')
    receiver.answer('/flaky', 500)
    await padmin.post(`/webhook/${id}/test`)
    const [first, second] = await receiver.waitFor('/flaky', 2)
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    expect(second!.body).toBe(first!.body)
    await waitFor(async () => (await deliveries(id)).length === 2)
    const listed = await deliveries(id)
    expect(listed.map((d) => [text(d.attempt), text(d.status), text(d.event_state)])).toEqual([
      ['2', '200', 'delivered'],
      ['1', '500', 'delivered'],
    ])
    expect(text(listed[1]!.response)).toBe('failing with 500')
  })

  it('are given up after the last attempt, then sent again by a job retry and a redelivery, with the same id', async () => {
    const { id } = await createHook(padmin, '/down', 'file.encoded')
    receiver.answer('/down', 500, 500, 500)
    await padmin.post(`/webhook/${id}/test`)
    const tries = await receiver.waitFor('/down', 3)
    await waitFor(async () => (await deliveries(id)).every((d) => text(d.event_state) === 'failed'), {
      message: 'the event given up',
    })
    expect(await deliveries(id)).toHaveLength(3)
    // No fourth attempt of its own.
    expect(receiver.at('/down')).toHaveLength(3)
    // The operator's `mediactl jobs retry` of the failed delivery job sends it again.
    const eventId = String(tries[0]!.headers['webhook-id'])
    const [job] = await app.kernel.jobs.list({ subject: eventId })
    expect(job).toMatchObject({ type: 'webhooks.deliver', state: 'failed', attempts: 3 })
    await app.kernel.jobs.retry(job!.id)
    const [, , , retried] = await receiver.waitFor('/down', 4)
    expect(retried!.headers['webhook-id']).toBe(eventId)
    await waitFor(async () => text((await deliveries(id))[0]!.event_state) === 'delivered')
    const [last] = await deliveries(id)
    const redelivered = await padmin.post(`/webhook/${id}/deliveries/${text(last!.id)}/redeliver`)
    expect(text(xmlOf(redelivered, 202).webhook_event.event_id)).toBe(tries[0]!.headers['webhook-id'])
    const again = (await receiver.waitFor('/down', 5))[4]!
    expect(again.headers['webhook-id']).toBe(eventId)
    await waitFor(async () => (await deliveries(id)).length === 5)
    expect(text((await deliveries(id))[0]!.event_state)).toBe('delivered')
    expectError(
      await padmin.post(`/webhook/${id}/deliveries/NoSuchDelivery00/redeliver`),
      404,
      'No delivery "NoSuchDelivery00" of this webhook.',
    )
  })

  it('are signed with both secrets while a rotation overlaps', async () => {
    const { id, secret: old } = await createHook(padmin, '/rotated', 'file.encoded')
    const rotated = xmlOf(await padmin.post(`/webhook/${id}/rotate_secret`), 200).webhook as XmlObject
    const fresh = text(rotated.secret)
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(old)
    await padmin.post(`/webhook/${id}/test`)
    const [got] = await receiver.waitFor('/rotated', 1)
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2)
    expect(new Verifier(fresh).verify(got!.body, headersOf(got!))).toMatchObject({ type: 'webhook.test' })
    expect(new Verifier(old).verify(got!.body, headersOf(got!))).toMatchObject({ type: 'webhook.test' })
  })

  it('keep the events of one subject in order when the first fails once', async () => {
    const { id } = await createHook(padmin, '/ordered', 'resource.created,resource.updated')
    const place = await makePlace(app.client, 'Ordered')
    receiver.answer('/ordered', 500)
    const file = await uploadFile(app.client)
    const created = await app.client.post(`/stream/${place.stream}/resources`, {
      form: { file, title: 'First', visibility: 'visible' },
    })
    const slug = text(xmlOf(created, 201).resource.slug)
    xmlOf(await app.client.put(`/resource/${slug}`, { form: { title: 'Second' } }), 200)
    const got = await receiver.waitFor('/ordered', 3)
    const delivered = got.filter((_, index) => index > 0).map((r) => r.event.type)
    expect(got[0]!.event.type).toBe('resource.created')
    expect(delivered).toEqual(['resource.created', 'resource.updated'])
    expect(id).toMatch(/^[A-Za-z0-9]{16}$/)
  })

  it('are stopped by disabling a webhook whose deliveries fail for webhooks.disable_after', async () => {
    const { id } = await createHook(padmin, '/failing', 'file.encoded')
    // Failing for six days already (nobody waits days in a test).
    const em = app.kernel.em()
    await em.nativeUpdate(WebhookEntity, { publicId: id }, { failingSince: new Date(Date.now() - 6 * 86_400_000) })
    receiver.answer('/failing', 503, 503, 503)
    await padmin.post(`/webhook/${id}/test`)
    await waitFor(async () => text(xmlOf(await padmin.get(`/webhook/${id}`), 200).webhook.enabled) === '0')
    const info = xmlOf(await padmin.get(`/webhook/${id}`), 200).webhook as XmlObject
    expect(text(info.disabled_reason)).toMatch(/deliveries failed since .* \(last: the receiver answered HTTP 503\)/)
    expectError(
      await padmin.post(`/webhook/${id}/deliveries/${text((await deliveries(id))[0]!.id)}/redeliver`),
      409,
      'The webhook is disabled: enable it first (PUT /webhook/<id> with enabled=1).',
    )
    const enabled = xmlOf(await padmin.put(`/webhook/${id}`, { form: { enabled: '1' } }), 200).webhook as XmlObject
    expect(text(enabled.enabled)).toBe('1')
    expect(text(enabled.disabled_reason)).toBe('')
    expect(text(enabled.failing_since)).toBe('')
  })

  it('are counted on the metrics listener', async () => {
    await waitFor(async () => {
      const scrape = await scrapeMetrics(metricsUrl)
      const value = (name: string, labels: Record<string, string>) =>
        scrape.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
          ?.value ?? 0
      return (
        value('mediactl_webhook_deliveries_total', { result: 'delivered' }) > 0 &&
        value('mediactl_webhook_deliveries_total', { result: 'rejected' }) > 0 &&
        value('mediactl_webhook_events_total', { type: 'webhook.test' }) > 0 &&
        value('mediactl_webhook_events_failed_total', {}) > 0 &&
        value('mediactl_webhooks_disabled_total', {}) > 0 &&
        value('mediactl_webhook_delivery_seconds_count', { result: 'delivered' }) > 0
      )
    })
  })
})

describe('events', () => {
  it('file.encoding_progress is opt-in and throttled per file, but for the last one', async () => {
    const { id } = await createHook(padmin, '/progress', 'file.encoding_progress')
    await createHook(padmin, '/no-progress', '*')
    const slug = await uploadFile(app.client, 'progress.pdf')
    const file = (await fileQueries.fileBySlug(app.kernel.services.reader, slug))!
    const announce = (progress: number) =>
      transaction(app.kernel.em(), (tx) =>
        app.kernel.emit('file.encoding_progress', { em: tx, fileId: file.id, progress }),
      )
    const started = Date.now()
    for (let step = 1; step <= 10; step++) await announce(step * 9)
    const elapsed = Date.now() - started
    await announce(100)
    const webhook = await app.kernel.em().findOneOrFail(WebhookEntity, { publicId: id })
    const recorded = await app.kernel.em().count(WebhookMessageEntity, { webhookId: webhook.id })
    // Ten announcements within `elapsed` ms: the first, at most one more per second, and the 100.
    expect(recorded).toBeGreaterThanOrEqual(2)
    expect(recorded).toBeLessThanOrEqual(2 + Math.floor(elapsed / 1000))
    const got = await receiver.waitFor('/progress', recorded)
    expect(got.map((r) => r.event.data.progress).sort((a, b) => a - b)[0]).toBe(9)
    expect(got.some((r) => r.event.data.progress === 100)).toBe(true)
    expect(got[0]!.event.data.file).toEqual({
      slug,
      name: 'progress.pdf',
      href: `${app.url}/file/${slug}`,
      type: 'document',
      size: expect.any(Number),
    })
    expect(receiver.at('/no-progress', 'file.encoding_progress')).toEqual([])
  })

  it('each is emitted by the action that causes it, to its platform only', async () => {
    const all = await createHook(padmin, '/all', '*,file.encoding_progress')
    await createHook(padmin, '/star', '*')
    await createHook(otherAdmin, '/other', '*', 'other')
    const video = await makeMedia('video', { seconds: 2, size: '160x120' })
    const encoded = await uploadMedia(app.client, video, 'clip.mp4')
    const broken = await uploadMedia(app.client, Buffer.from('not a video at all, only text'.repeat(20)), 'broken.mp4')
    const place = await makePlace(app.client, 'Events')
    const file = await uploadFile(app.client, 'events.pdf')
    const resource = text(
      xmlOf(
        await app.client.post(`/stream/${place.stream}/resources`, {
          form: { file, title: 'Published', visibility: 'visible' },
        }),
        201,
      ).resource.slug,
    )
    xmlOf(await app.client.put(`/resource/${resource}`, { form: { title: 'Renamed', description: 'more' } }), 200)
    expect((await app.client.delete(`/resource/${resource}`)).status).toBe(204)
    expect((await app.client.delete(`/file/${file}`)).status).toBe(204)
    xmlOf(
      await app.client.post('/platform/default/users', {
        form: {
          username: 'newcomer',
          password: 'a long password',
          email: 'newcomer@example.org',
          profile: 'default-viewer',
        },
      }),
      201,
    )
    // A change on the other platform reaches its own webhook, never this one.
    xmlOf(await otherAdmin.post('/platform/other/webhooks', { form: { url: `${receiver.url}/x`, events: '*' } }), 201)
    await uploadFile(otherAdmin)

    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const one = async (type: string, match: (data: Record<string, any>) => boolean = () => true) => {
      await waitFor(() => receiver.at('/all', type).some((r) => match(r.event.data)), {
        timeout: 60_000,
        message: type,
      })
      return receiver.at('/all', type).find((r) => match(r.event.data))!.event.data
    }
    const platform = { slug: 'default', href: `${app.url}/platform/default` }
    const fileOf = (slug: string) => ({ slug, href: `${app.url}/file/${slug}` })
    expect(await one('file.uploaded', (d) => d.file.slug === encoded)).toEqual({
      platform,
      file: { ...fileOf(encoded), name: 'clip.mp4', type: 'video', size: video.length },
    })
    expect(await one('file.encoded', (d) => d.file.slug === encoded)).toMatchObject({ platform, file: fileOf(encoded) })
    const progress = await one('file.encoding_progress', (d) => d.file.slug === encoded)
    expect(progress.progress).toBeGreaterThanOrEqual(0)
    // Throttled: at most one per webhooks.progress_interval (1 s here) and file, but for the last one (100).
    const times = receiver
      .at('/all', 'file.encoding_progress')
      .filter((r) => r.event.data.file.slug === encoded && r.event.data.progress < 100)
      .map((r) => Date.parse(r.event.timestamp))
      .sort((a, b) => a - b)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(995)
    expect(await one('file.encoding_failed', (d) => d.file.slug === broken)).toMatchObject({
      platform,
      file: fileOf(broken),
      reason: expect.any(String),
    })
    const resourceData = {
      slug: resource,
      href: `${app.url}/resource/${resource}`,
      stream: { slug: place.stream, href: `${app.url}/stream/${place.stream}` },
      file: fileOf(file),
    }
    expect(await one('resource.created', (d) => d.resource.slug === resource)).toEqual({
      platform,
      resource: { ...resourceData, title: 'Published' },
    })
    expect(await one('resource.updated', (d) => d.resource.slug === resource)).toEqual({
      platform,
      resource: { ...resourceData, title: 'Renamed' },
      changed: ['title', 'description'],
    })
    expect(await one('resource.deleted', (d) => d.resource.slug === resource)).toMatchObject({ platform })
    expect(await one('file.deleted', (d) => d.file.slug === file)).toMatchObject({ platform, file: fileOf(file) })
    expect(await one('user.created', (d) => d.user.username === 'newcomer')).toEqual({
      platform,
      user: { username: 'newcomer', href: `${app.url}/user/newcomer` },
    })
    // The other platform's upload went to its webhook only.
    await receiver.waitFor('/other', 1, 'file.uploaded')
    const otherSlug = receiver.at('/other', 'file.uploaded')[0]!.event.data.file.slug
    expect(receiver.at('/all').some((r) => r.event.data.file?.slug === otherSlug)).toBe(false)
    // `*` leaves the opt-in progress events out; nothing carries a secret.
    await receiver.waitFor('/star', 1, 'file.encoded')
    expect(receiver.at('/star', 'file.encoding_progress')).toEqual([])
    expect(receiver.received.some((r) => r.body.includes('whsec_'))).toBe(false)
    expect(all.id).toMatch(/^[A-Za-z0-9]{16}$/)
  }, 120_000)
})
