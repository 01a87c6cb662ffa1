import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait.js'
import { parseXml, text } from '../helpers/xml.js'
import { Receiver, WebhooksInstance, verified } from './webhooks-crash.helpers.js'

/**
 * Webhook events against SIGKILL, with real `mediactl serve` processes on SQLite and a real
 * receiver on 127.0.0.1: an event is recorded, and its delivery queued, in the transaction of
 * the change it announces (the outbox), so a process killed right after that commit, or while a
 * failed delivery waits for its retry, loses nothing: the restarted process delivers the event,
 * once, with the same `webhook-id`, signed as Standard Webhooks says.
 */

let receiver: Receiver
let app: WebhooksInstance

beforeAll(async () => {
  receiver = await Receiver.start()
  app = await WebhooksInstance.create()
})

// No serving process outlives its test, whatever failed.
afterEach(() => app?.kill())

afterAll(async () => {
  await app?.close()
  await receiver?.close()
})

describe('webhook events against SIGKILL', () => {
  it('dies between the commit of an upload and any signal: the event is delivered once after the restart', async () => {
    const faulty = await app.serve({ MEDIACTL_TEST_FAULT: 'after-job-commit' })
    // Creating a webhook queues no job: the fault point waits for the upload's transaction.
    const hook = await app.createWebhook(`${receiver.url}/committed`, 'file.uploaded')
    const cut = await app.upload('committed.pdf').then(
      (res) => `answered ${res.status}`,
      (error: Error) => error.message,
    )
    expect(cut).not.toMatch(/^answered/)
    const exit = await faulty.exited
    expect(exit.signal, exit.stdout + exit.stderr).toBe('SIGKILL')
    app.server = undefined

    // The file, its event and the event's delivery job committed together; nothing was sent.
    expect(receiver.at('/committed')).toEqual([])
    const files = app.query<{ slug: string }>('select slug from files where name = ?', ['committed.pdf'])
    expect(files).toHaveLength(1)
    const messages = app.messages(hook.id)
    expect(messages).toEqual([
      { event_id: expect.stringMatching(/^msg_/), type: 'file.uploaded', state: 'pending', attempts: 0 },
    ])
    const eventId = messages[0]!.event_id
    expect(app.job(eventId)).toEqual({ state: 'waiting', attempts: 0 })

    await app.serve()
    await app.waitForMessage(hook.id, 'delivered')
    const got = receiver.at('/committed')
    expect(got).toHaveLength(1)
    expect(got[0]!.headers['webhook-id']).toBe(eventId)
    const event = verified(hook.secret, got[0]!)
    expect(event.type).toBe('file.uploaded')
    expect(event.data.file).toMatchObject({ slug: files[0]!.slug, name: 'committed.pdf' })
    // The runner records the job's success just after the handler delivered.
    await waitFor(() => app.job(eventId)?.state === 'succeeded', { message: 'the delivery job succeeded' })
    expect(app.job(eventId)).toEqual({ state: 'succeeded', attempts: 1 })
    expect(app.messages(hook.id)).toEqual([{ ...messages[0], state: 'delivered', attempts: 1 }])
    expect(receiver.at('/committed')).toHaveLength(1)
  })

  it('is killed while a failed delivery waits for its retry: the retry after the restart has the same webhook-id', async () => {
    // The first retry of this process comes 3 s (±20 %) after the failure, not 1 s: wide enough for the kill to land
    // in that wait however loaded the machine is. The restarted process keeps the retry's time, due by then.
    await app.serve({ MEDIACTL_WEBHOOKS__RETRY_DELAYS: '[3, 1]' })
    const hook = await app.createWebhook(`${receiver.url}/retried`, 'file.uploaded')
    receiver.answer('/retried', 500)
    const res = await app.upload('retried.pdf')
    expect(res.status, res.body).toBe(200)
    const slug = text(parseXml(res.body).file.slug)

    let eventId = ''
    await waitFor(
      () => {
        eventId = app.messages(hook.id)[0]?.event_id ?? ''
        const job = eventId ? app.job(eventId) : undefined
        return job?.state === 'waiting' && job.attempts === 1
      },
      { interval: 20, timeout: 30_000, message: () => `the first delivery failed and waits\n${app.logs()}` },
    )
    const killed = await app.server!.stop('SIGKILL')
    expect(killed.signal).toBe('SIGKILL')
    app.server = undefined

    expect(receiver.at('/retried').map((r) => r.status)).toEqual([500])
    expect(app.messages(hook.id)).toEqual([{ event_id: eventId, type: 'file.uploaded', state: 'pending', attempts: 1 }])
    expect(app.job(eventId)).toEqual({ state: 'waiting', attempts: 1 })

    await app.serve()
    await app.waitForMessage(hook.id, 'delivered')
    const got = receiver.at('/retried')
    expect(got.map((r) => r.status)).toEqual([500, 200])
    // The same event: its id, and the very bytes the signature covers.
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId])
    expect(got[1]!.body).toBe(got[0]!.body)
    for (const r of got) {
      const event = verified(hook.secret, r)
      expect(event.type).toBe('file.uploaded')
      expect(event.data.file).toMatchObject({ slug, name: 'retried.pdf' })
    }
    await waitFor(() => app.job(eventId)?.state === 'succeeded', { message: 'the delivery job succeeded' })
    expect(app.job(eventId)).toEqual({ state: 'succeeded', attempts: 2 })
    expect(app.messages(hook.id)).toEqual([
      { event_id: eventId, type: 'file.uploaded', state: 'delivered', attempts: 2 },
    ])
  })
})
