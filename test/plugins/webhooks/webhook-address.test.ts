import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blockedAddressReason, checkWebhookUrl } from '../../../plugins/webhooks/webhook-address.js'
import { loopbackNetwork } from './loopback-network.js'

const CASES: Record<string, string[]> = {
  loopback: ['127.0.0.1', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::1]'],
  private: [
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '198.18.0.1',
    '198.19.255.255',
    '::ffff:10.0.0.1',
    '::FFFF:C0A8:0101',
    '::ffff:0:10.1.2.3',
    '64:ff9b::a00:1',
    '64:ff9b::10.0.0.1',
  ],
  'link-local': ['169.254.0.1', '169.254.1.1', 'fe80::1', 'FE80::abcd:1', 'febf::1', 'fe80::1%eth0', '::1.2.3.4%lo'],
  'unique-local': ['fc00::1', 'fd12:3456:789a::1', 'FDFF:FFFF::'],
  metadata: [
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    'FD00:EC2::254',
    '::ffff:a9fe:a9fe',
  ],
  unspecified: ['0.0.0.0', '0.1.2.3', '::', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'FF05::1:3'],
  reserved: [
    '240.0.0.1',
    '255.255.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '2001:db8::1',
    '2001:DB8:ffff::',
    '100::1',
    '64:ff9b::c000:201',
  ],
  invalid: [
    '',
    'localhost',
    'example.com',
    '0177.0.0.1',
    '127.1',
    '1.2.3.256',
    '::g',
    '1::2::3',
    'fe80::1%',
    '[::1',
    '1.2.3.4%eth0',
  ],
}

const PUBLIC = [
  '8.8.8.8',
  '93.184.216.34',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700::1111',
  '2606:4700:4700:0:0:0:0:1111',
  '2A00:1450:4001:82B::200E',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
]

describe('blockedAddressReason', () => {
  for (const [reason, addresses] of Object.entries(CASES)) {
    it.each(addresses)(`%s is ${reason}`, (address) => {
      expect(blockedAddressReason(address)).toBe(reason)
    })
  }

  it.each(PUBLIC)('%s is public', (address) => {
    expect(blockedAddressReason(address)).toBeNull()
  })

  it('refuses an IPv4 address carried by 6to4 or Teredo as that address would be', () => {
    expect(blockedAddressReason('2002:7f00:1::')).toBe('loopback')
    expect(blockedAddressReason('2002:a00:1::1')).toBe('private')
    expect(blockedAddressReason('2002:808:808::1')).toBeNull()
    // Teredo keeps the client's address inverted in the last 32 bits: 127.0.0.1 is 80ff:fffe.
    expect(blockedAddressReason('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe('loopback')
  })
})

/** An arbitrary IPv4 address inside `base/bits`, in dotted decimal. */
function ipv4In(base: string, bits: number): fc.Arbitrary<string> {
  const start = toNumber(base)
  return fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => toDotted(start + offset))
}

function toNumber(dotted: string): number {
  return dotted.split('.').reduce((value, part) => value * 256 + Number(part), 0)
}

function toDotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.')
}

// The test's own list of what is not public, written apart from the code under test.
const BLOCKED_IPV4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['100.100.100.200', 32],
]

function inBlockedIpv4(value: number): boolean {
  return BLOCKED_IPV4.some(([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === toNumber(base) / 2 ** (32 - bits))
}

describe('blockedAddressReason, properties', () => {
  it('blocks every address of the private, loopback and unique-local blocks, in any IPv4-in-IPv6 form', () => {
    const ipv4 = fc.oneof(
      ipv4In('10.0.0.0', 8),
      ipv4In('172.16.0.0', 12),
      ipv4In('192.168.0.0', 16),
      ipv4In('127.0.0.0', 8),
    )
    fc.assert(
      fc.property(ipv4, (address) => {
        const value = toNumber(address)
        const hex = `${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`
        for (const form of [address, `::ffff:${address}`, `::ffff:${hex}`, `0:0:0:0:0:ffff:${hex}`.toUpperCase()]) {
          expect(blockedAddressReason(form)).not.toBeNull()
        }
      }),
    )
    const uniqueLocal = fc
      .tuple(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }),
        fc.boolean(),
      )
      .map(([first, rest, upper]) => {
        const text = [first, ...rest].map((group) => group.toString(16)).join(':')
        return upper ? text.toUpperCase() : text
      })
    fc.assert(
      fc.property(uniqueLocal, (address) => {
        expect(blockedAddressReason(address)).not.toBeNull()
        // The same address, its longest run of zero groups compressed.
        expect(blockedAddressReason(address.replace(/(^|:)0(:0)+(:|$)/, '::'))).not.toBeNull()
      }),
    )
  })

  it('finds every other IPv4 address public, alone and IPv4-mapped', () => {
    const outside = fc.integer({ min: 0, max: 2 ** 32 - 1 }).filter((value) => !inBlockedIpv4(value))
    fc.assert(
      fc.property(outside, (value) => {
        const address = toDotted(value)
        expect(blockedAddressReason(address)).toBeNull()
        expect(blockedAddressReason(`::ffff:${address}`)).toBeNull()
      }),
      { numRuns: 2000 },
    )
  })
})

describe('checkWebhookUrl', () => {
  const strict = { allowPrivateNetworks: false, allowHttp: false }

  it('accepts https to a name that resolves to public addresses only, and dials nothing', async () => {
    const network = loopbackNetwork({ 'hooks.example': ['93.184.216.34', '2606:4700::1111'] })
    const checked = await checkWebhookUrl('https://hooks.example/in?x=1', { network, ...strict })
    expect(checked).toEqual({
      url: new URL('https://hooks.example/in?x=1'),
      addresses: ['93.184.216.34', '2606:4700::1111'],
    })
    expect(network.dialled).toEqual([])
  })

  it('refuses http unless http or private networks are allowed', async () => {
    const network = loopbackNetwork({ 'hooks.example': ['93.184.216.34'] })
    expect(await checkWebhookUrl('http://hooks.example/', { network, ...strict })).toEqual({
      error: 'must start with https://',
    })
    expect(await checkWebhookUrl('http://hooks.example/', { network, ...strict, allowHttp: true })).toHaveProperty(
      'addresses',
    )
    expect(
      await checkWebhookUrl('http://hooks.example/', { network, ...strict, allowPrivateNetworks: true }),
    ).toHaveProperty('addresses')
    expect(await checkWebhookUrl('ftp://hooks.example/', { network, ...strict, allowHttp: true })).toEqual({
      error: 'must start with https:// or http://',
    })
    expect(network.dialled).toEqual([])
  })

  it.each([
    ['https://user:secret@hooks.example/', 'must not contain a user name or password'],
    ['https://user@hooks.example/', 'must not contain a user name or password'],
    ['not a url', 'is not a valid URL'],
    ['https://', 'is not a valid URL'],
    ['https://[fe80::1%25eth0]/', 'is not a valid URL'],
    [`https://hooks.example/${'a'.repeat(2048)}`, 'is longer than 2048 characters'],
    ['https://unknown.example/', 'does not resolve: getaddrinfo ENOTFOUND unknown.example'],
  ])('refuses %s', async (raw, error) => {
    const network = loopbackNetwork({ 'hooks.example': ['93.184.216.34'] })
    expect(await checkWebhookUrl(raw, { network, ...strict })).toEqual({ error })
    expect(network.dialled).toEqual([])
  })

  it.each([
    ['https://evil.example/', 'resolves to 10.0.0.7, a private address'],
    ['https://mixed.example/', 'resolves to 127.0.0.1, a loopback address'],
    ['https://127.0.0.1/', 'resolves to 127.0.0.1, a loopback address'],
    ['https://0177.0.0.1/', 'resolves to 127.0.0.1, a loopback address'],
    ['https://2130706433/', 'resolves to 127.0.0.1, a loopback address'],
    ['https://0x7f.1/', 'resolves to 127.0.0.1, a loopback address'],
    ['https://[::1]:8443/', 'resolves to ::1, a loopback address'],
    ['https://[::ffff:127.0.0.1]/', 'resolves to ::ffff:7f00:1, a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', 'resolves to 169.254.169.254, a metadata address'],
    ['https://0.0.0.0/', 'resolves to 0.0.0.0, an unspecified address'],
    ['https://[fd00:ec2::254]/', 'resolves to fd00:ec2::254, a metadata address'],
  ])('refuses %s, whose addresses are not all public', async (raw, start) => {
    const network = loopbackNetwork({ 'evil.example': ['10.0.0.7'], 'mixed.example': ['93.184.216.34', '127.0.0.1'] })
    const checked = await checkWebhookUrl(raw, { network, allowPrivateNetworks: false, allowHttp: true })
    expect(checked).toEqual({
      error: `${start}: webhooks go to public addresses only (webhooks.allow_private_networks allows others)`,
    })
    expect(network.dialled).toEqual([])
  })

  it('lets loopback and private addresses through when private networks are allowed', async () => {
    const network = loopbackNetwork({ 'hooks.test': ['127.0.0.1', '10.0.0.7'] })
    const options = { network, allowPrivateNetworks: true, allowHttp: false }
    expect(await checkWebhookUrl('http://hooks.test:8080/', options)).toMatchObject({
      addresses: ['127.0.0.1', '10.0.0.7'],
    })
    expect(await checkWebhookUrl('http://[::1]/', options)).toMatchObject({ addresses: ['::1'] })
    expect(network.dialled).toEqual([])
  })

  it('refuses an answer that is no address even when private networks are allowed', async () => {
    const network = loopbackNetwork({ 'odd.example': ['not-an-ip'], 'none.example': [] })
    const options = { network, allowPrivateNetworks: true, allowHttp: true }
    expect(await checkWebhookUrl('https://odd.example/', options)).toEqual({
      error: 'resolves to "not-an-ip", which is not an address',
    })
    expect(await checkWebhookUrl('https://none.example/', options)).toEqual({ error: 'does not resolve: no address' })
  })
})
