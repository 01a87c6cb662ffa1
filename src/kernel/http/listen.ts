import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Binds `server` to `host`:`port`; resolves with the address bound, rejects with the bind error (EADDRINUSE). */
export function listenOn(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}
