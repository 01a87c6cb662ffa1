import { promises as dns } from 'node:dns'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'

/** How deliveries reach the network: replaced in tests so that nothing leaves loopback. */
export interface WebhookNetwork {
  /** Every address of a host name (A and AAAA, like dns.lookup with all: true); a literal IP answers itself. */
  resolve(host: string): Promise<string[]>
  /** Opens the connection to one already-checked address (TLS when `tls`, verifying the certificate for `servername`). */
  dial(target: { address: string; port: number; tls: boolean; servername: string }): Duplex
}

/** A URL's hostname keeps the brackets of an IPv6 literal; resolvers and sockets want the address alone. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** The machine's resolver and sockets. */
export const systemNetwork: WebhookNetwork = {
  async resolve(host) {
    const bare = bareHost(host)
    // A literal is its own answer: no resolver is asked, so none can substitute another address.
    if (net.isIP(bare)) return [bare]
    // Every address, in the resolver's order: the check refuses the name if any one of them is not public.
    const found = await dns.lookup(bare, { all: true, verbatim: true })
    return found.map((entry) => entry.address)
  },
  dial({ address, port, tls: secure, servername }) {
    if (!secure) return net.connect({ host: address, port })
    const name = bareHost(servername)
    return tls.connect({
      host: address,
      port,
      // SNI may not carry an IP (RFC 6066, and Node warns); without it the certificate is checked against `host`,
      // which for an IP literal URL is that same address.
      servername: net.isIP(name) ? undefined : name,
      ALPNProtocols: ['http/1.1'],
    })
  },
}
