import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { UserError } from '../errors.js'

/** What an operator reads when a listener cannot bind: the address, the cause, the setting to change. */
export class BindError extends UserError {
  override name = 'BindError'
}

const CAUSES: Record<string, string> = {
  EADDRINUSE: 'is already in use by another process (another mediactl serve?)',
  EACCES: 'needs privileges (ports below 1024 do): use a higher port behind a reverse proxy',
  EADDRNOTAVAIL: 'is not an address of this machine',
}

/** The settings that choose a listener's address, as an operator writes them (`http.port (MEDIACTL_PORT)`). */
export interface AddressSettings {
  port: string
  host: string
}

/**
 * Binds `server` to `host`:`port`; resolves with the address bound. A bind failure rejects
 * with a BindError naming the address, the cause and the setting to change, never the raw
 * `listen EADDRINUSE` alone.
 */
export function listenOn(server: Server, port: number, host: string, settings: AddressSettings): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => {
      const cause = (error.code && CAUSES[error.code]) ?? `cannot be bound (${error.code ?? error.message})`
      const change =
        error.code === 'EADDRNOTAVAIL'
          ? `choose another ${settings.host}`
          : `stop what uses it or choose another ${settings.port}`
      reject(new BindError(`${host}:${port} ${cause}: ${change}`, { cause: error }))
    }
    server.once('error', fail)
    server.listen(port, host, () => {
      server.off('error', fail)
      resolve(server.address() as AddressInfo)
    })
  })
}
