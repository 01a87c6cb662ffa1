import net from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import type { WebhookNetwork } from '../../../plugins/webhooks/webhook-network.js'

/** A network for tests that connects to loopback only, and records every dial (and every attempt to leave). */
export type LoopbackNetwork = WebhookNetwork & { dialled: string[]; violations: string[] }

/**
 * Resolves names from `names` (read at each call, so a test may change an answer between two sends: DNS rebinding),
 * literal IPs as themselves, anything else as unknown; dials 127.0.0.0/8 and ::1, and refuses every other address
 * (recorded in `violations`) rather than let a test send anything off the machine, even by mistake.
 */
export function loopbackNetwork(names: Record<string, string[]> = {}): LoopbackNetwork {
  const dialled: string[] = []
  const violations: string[] = []
  return {
    dialled,
    violations,
    async resolve(host) {
      const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
      if (net.isIP(bare)) return [bare]
      const found = Object.hasOwn(names, bare) ? names[bare] : undefined
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${bare}`), { code: 'ENOTFOUND', hostname: bare })
      return [...found]
    },
    dial({ address, port, tls: secure, servername }): Duplex {
      dialled.push(address)
      // Judged here on its own, deliberately simple terms, not by the code under test.
      const loopback = (net.isIPv4(address) && address.startsWith('127.')) || address === '::1'
      if (!loopback) {
        violations.push(`${address}:${port}`)
        throw new Error(`test tried to dial a non-loopback address ${address}:${port}`)
      }
      if (!secure) return net.connect({ host: address, port })
      return tls.connect({ host: address, port, servername: net.isIP(servername) ? undefined : servername })
    },
  }
}
