import { isIP } from 'node:net'
import { type WebhookNetwork, bareHost } from './webhook-network.js'

/** Why an address is not a public unicast one (a word for the 412 message), or `invalid` when it is no address. */
export type BlockedReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid'

/** The longest URL a webhook may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048

type Range<T> = readonly [base: T, prefixBits: number, reason: BlockedReason]

// The cloud metadata endpoints come first: inside link-local or private blocks, the reason should name them.
const IPV4_BLOCKED: readonly Range<string>[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task credentials
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT
  ['198.18.0.0', 15, 'private'], // benchmarking
  ['169.254.0.0', 16, 'link-local'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
]

const IPV6_BLOCKED: readonly Range<string>[] = [
  ['fd00:ec2::254', 128, 'metadata'], // AWS over IPv6
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // the deprecated site-local block
  ['fc00::', 7, 'unique-local'],
  ['ff00::', 8, 'multicast'],
  ['64:ff9b:1::', 48, 'private'], // NAT64 of a local network (RFC 8215)
  ['100::', 64, 'reserved'], // discard
  ['2001:2::', 48, 'private'], // benchmarking
  ['2001:db8::', 32, 'reserved'], // documentation
  ['3fff::', 20, 'reserved'], // documentation (RFC 9637)
]

const ipv4Ranges = IPV4_BLOCKED.map(([base, bits, reason]) => ({ ...mask32(ipv4Value(base)!, bits), reason }))
const ipv6Ranges = IPV6_BLOCKED.map(([base, bits, reason]) => ({ ...mask128(ipv6Value(base)!, bits), reason }))
const NAT64 = ipv6Value('64:ff9b::')!
const SIX_TO_FOUR = ipv6Value('2002::')!
const TEREDO = ipv6Value('2001::')!
const GLOBAL_UNICAST = ipv6Value('2000::')!

/**
 * Null when `address` is a public unicast address a webhook may be sent to; otherwise why not. Parsed here rather
 * than matched as text, so every form Node accepts (zero-compressed, uppercase, IPv4 inside IPv6) gets one answer.
 */
export function blockedAddressReason(address: string): BlockedReason | null {
  const text = bareHost(address)
  const family = isIP(text)
  if (family === 4) return ipv4Reason(ipv4Value(text)!)
  if (family !== 6) return 'invalid'
  const zone = text.indexOf('%')
  const value = ipv6Value(zone === -1 ? text : text.slice(0, zone))
  if (value === null) return 'invalid'
  // A zone id only means something for an address of the local link, whatever its bits say.
  return ipv6Reason(value) ?? (zone === -1 ? null : 'link-local')
}

function ipv4Reason(value: number): BlockedReason | null {
  for (const range of ipv4Ranges) if ((value & range.mask) >>> 0 === range.base) return range.reason
  return null
}

function ipv6Reason(value: bigint): BlockedReason | null {
  const high96 = value >> 32n
  const low32 = Number(value & 0xffffffffn)
  if (value === 0n) return 'unspecified'
  if (value === 1n) return 'loopback'
  // IPv4-compatible (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and NAT64
  // (64:ff9b::a.b.c.d) addresses reach the IPv4 address inside them.
  if (high96 === 0n || high96 === 0xffffn || high96 === 0xffff0000n || high96 === NAT64 >> 32n) {
    return ipv4Reason(low32)
  }
  // 6to4 and Teredo carry an IPv4 address too: refused when that one would be.
  if (value >> 112n === SIX_TO_FOUR >> 112n) {
    const inner = ipv4Reason(Number((value >> 80n) & 0xffffffffn))
    if (inner) return inner
  }
  if (value >> 96n === TEREDO >> 96n) {
    const inner = ipv4Reason(~low32 >>> 0)
    if (inner) return inner
  }
  for (const range of ipv6Ranges) if ((value & range.mask) === range.base) return range.reason
  // Only 2000::/3 is allocated for global unicast: whatever lies elsewhere is not a public host.
  if (value >> 125n !== GLOBAL_UNICAST >> 125n) return 'reserved'
  return null
}

function mask32(value: number, bits: number): { base: number; mask: number } {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
  return { base: (value & mask) >>> 0, mask }
}

function mask128(value: bigint, bits: number): { base: bigint; mask: bigint } {
  const mask = ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits)
  return { base: value & mask, mask }
}

/** Dotted decimal, as `isIP` accepts it (no octal, hex or short forms: URL parsing has normalised those). */
function ipv4Value(text: string): number | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return null
  return parts.reduce((value, part) => value * 256 + Number(part), 0)
}

/** The 128 bits of an IPv6 address without zone id, in any of its textual forms; null when it is none. */
function ipv6Value(text: string): bigint | null {
  let head = text
  const tail: number[] = []
  if (text.includes('.')) {
    // An IPv4 address in dotted form ends the text and stands for the last two groups.
    const cut = text.lastIndexOf(':')
    const ipv4 = ipv4Value(text.slice(cut + 1))
    if (cut === -1 || ipv4 === null) return null
    tail.push(Math.floor(ipv4 / 0x10000), ipv4 % 0x10000)
    head = text.slice(0, cut + 1)
    if (!head.endsWith('::')) head = head.slice(0, -1)
  }
  const slots = 8 - tail.length
  const halves = head.split('::')
  if (halves.length > 2) return null
  const groups = (part: string) => (part === '' ? [] : part.split(':'))
  const left = groups(halves[0]!)
  const right = halves.length === 2 ? groups(halves[1]!) : []
  const zeros = slots - left.length - right.length
  if (halves.length === 2 ? zeros < 0 : zeros !== 0) return null
  const all = [...left, ...Array<string>(zeros).fill('0'), ...right]
  if (!all.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return null
  return [...all.map((group) => parseInt(group, 16)), ...tail].reduce(
    (value, group) => (value << 16n) | BigInt(group),
    0n,
  )
}

/** The options of a URL check: who resolves, and what the webhooks section allows. */
export interface WebhookUrlOptions {
  network: WebhookNetwork
  /** `webhooks.allow_private_networks`: every address goes (and so does http). */
  allowPrivateNetworks: boolean
  /** Whether `http:` URLs are accepted besides `https:`. */
  allowHttp: boolean
}

/**
 * Checks a webhook URL and resolves its host: every address it resolves to must be public (unless private networks
 * are allowed), so a name with one public and one internal address is refused. Never connects to anything. The
 * error is the 412 message of the `url` field.
 */
export async function checkWebhookUrl(
  raw: string,
  options: WebhookUrlOptions,
): Promise<{ url: URL; addresses: string[] } | { error: string }> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { error: `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { error: 'is not a valid URL' }
  }
  const httpAllowed = options.allowHttp || options.allowPrivateNetworks
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    return { error: httpAllowed ? 'must start with https:// or http://' : 'must start with https://' }
  }
  // Credentials in a URL end up in logs and listings: a receiver that needs them takes a header.
  if (url.username || url.password) return { error: 'must not contain a user name or password' }
  if (!url.hostname) return { error: 'has no host' }

  let addresses: string[]
  try {
    addresses = await options.network.resolve(url.hostname)
  } catch (error) {
    return { error: `does not resolve: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (addresses.length === 0) return { error: 'does not resolve: no address' }
  for (const address of addresses) {
    const reason = blockedAddressReason(address)
    // An answer that is no address at all is refused whatever is allowed.
    if (reason === 'invalid') return { error: `resolves to ${JSON.stringify(address)}, which is not an address` }
    if (reason && !options.allowPrivateNetworks) {
      const article = reason === 'unspecified' ? 'an' : 'a'
      return {
        error:
          `resolves to ${address}, ${article} ${reason} address: webhooks go to public addresses only ` +
          '(webhooks.allow_private_networks allows others)',
      }
    }
  }
  return { url, addresses }
}
