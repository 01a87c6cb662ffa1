import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOKS_NETWORK } from '../../../plugins/webhooks/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { xmlOf } from '../../helpers/answers.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { type LoopbackNetwork, loopbackNetwork } from './loopback-network.js'

/**
 * Webhooks never reach private networks unless the operator allows them (issue 19), proven
 * without a packet: names resolve through a test network (no DNS), and its dial fails the test
 * for any address outside loopback. Private and metadata addresses are only ever given to the
 * validator, never dialled.
 */

let app: TestApp
let network: LoopbackNetwork
const names: Record<string, string[]> = {}

beforeAll(async () => {
  app = await startApp({ config: { webhooks: { retry_delays: [1], timeout: 2 } } })
  network = loopbackNetwork(names)
  Object.assign(app.kernel.exposed(WEBHOOKS_NETWORK), { resolve: network.resolve, dial: network.dial })
})

afterAll(() => app?.close())

afterEach(() => {
  expect(network.violations).toEqual([])
})

const create = (url: string) => app.client.post('/platform/default/webhooks', { form: { url, events: '*' } })

describe('webhook URLs', () => {
  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1, a loopback address'],
    ['https://127.8.9.10:8443/hook', '127.8.9.10, a loopback address'],
    ['https://[::1]/hook', '::1, a loopback address'],
    ['https://[::ffff:127.0.0.1]/hook', 'a loopback address'],
    ['https://10.1.2.3/hook', '10.1.2.3, a private address'],
    ['https://192.168.1.20/hook', 'a private address'],
    ['https://172.16.0.1/hook', 'a private address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254, a metadata address'],
    ['https://[fd00:ec2::254]/', 'a metadata address'],
    ['https://[fe80::1]/', 'a link-local address'],
    ['https://[fd12:3456::1]/', 'a unique-local address'],
    ['https://0.0.0.0/', 'an unspecified address'],
    ['https://2130706433/', 'a loopback address'],
    ['https://loopback.test/hook', '127.0.0.1, a loopback address'],
    ['https://mixed.test/hook', '10.0.0.7, a private address'],
  ])('%s is refused at creation with 412 naming url, nothing dialled', async (url, reason) => {
    names['loopback.test'] = ['127.0.0.1']
    names['mixed.test'] = ['93.184.216.34', '10.0.0.7']
    const res = await create(url)
    expect(res.status, res.body).toBe(412)
    const fields = list<XmlObject>(xmlOf(res, 412).error.field)
    expect(fields.map((f) => f['@name'])).toEqual(['url'])
    expect(text(fields[0])).toContain(reason)
    expect(text(fields[0])).toContain('webhooks.allow_private_networks')
    expect(network.dialled).toEqual([])
  })

  it('must be https unless allowed, carry no credentials, and resolve', async () => {
    names['public.test'] = ['93.184.216.34']
    for (const [url, message] of [
      ['http://public.test/hook', 'must start with https://'],
      ['https://user:secret@public.test/hook', 'must not contain a user name or password'],
      ['https://unknown.test/hook', 'does not resolve'],
      ['not a url', 'is not a valid URL'],
    ]) {
      const res = await create(url!)
      expect(res.status, url).toBe(412)
      expect(text(list<XmlObject>(xmlOf(res, 412).error.field)[0])).toContain(message)
    }
    expect(network.dialled).toEqual([])
  })

  it('are checked again at each delivery: a name that now resolves to a private address is not dialled', async () => {
    names['rebind.test'] = ['93.184.216.34']
    const created = xmlOf(await create('https://rebind.test/hook'), 201).webhook as XmlObject
    const id = text(created.id)
    // DNS rebinding: the name moved to the metadata address after the check at creation.
    names['rebind.test'] = ['169.254.169.254']
    xmlOf(await app.client.post(`/webhook/${id}/test`), 202)
    let delivery: XmlObject | undefined
    await waitFor(async () => {
      delivery = list<XmlObject>(xmlOf(await app.client.get(`/webhook/${id}/deliveries`), 200).deliveries.delivery)[0]
      return delivery !== undefined
    })
    expect(text(delivery!.status)).toBe('')
    expect(text(delivery!.error)).toContain('169.254.169.254, a metadata address')
    expect(network.dialled).toEqual([])
  })
})
