/**
 * The port catalogue: each port's name mapped to its interface. Interfaces live in
 * `src/kernel/ports/`; a backend plugin provides one with `ctx.provide(name, impl)`.
 */
import type { AccessGrantsPort } from './ports/access-grants.port.js'
import type { CredentialsPort } from './ports/credentials.port.js'
import type { EncoderPort } from './ports/encoder.port.js'
import type { LocksPort } from './ports/locks.port.js'
import type { NonceCounterPort } from './ports/nonce-counter.port.js'
import type { QueuePort } from './ports/queue.port.js'
import type { SessionsPort } from './ports/sessions.port.js'
import type { ResumableUploadsPort } from './ports/resumable-uploads.port.js'
import type { StoragePort } from './ports/storage.port.js'
import type { TranscriberPort } from './ports/transcriber.port.js'

export interface KernelPorts {
  /** Looks users up for Digest authentication (identity plugin). */
  credentials: CredentialsPort
  /** Nonce counts for replay protection: the kernel's (`state: database` or `memory`) unless state-redis provides them. */
  nonceCounter: NonceCounterPort
  /** Browser sessions (console plugin); optional: without it the API knows only Digest. */
  sessions: SessionsPort
  /** Role flags from accesses, for the authorization service (identity plugin). */
  accessGrants: AccessGrantsPort
  /** Where file bytes live (storage-fs, storage-s3). */
  storage: StoragePort
  /** Where tus uploads keep their bytes until they finish; optional, tus answers 501 without (storage-fs, storage-s3). */
  resumableUploads: ResumableUploadsPort
  /** Exclusive locks (tus uploads): the kernel's (`state: database` or `memory`) unless state-redis provides them. */
  locks: LocksPort
  /** Durable background jobs (queue-inline, queue-bullmq); optional until a plugin declares jobs. */
  queue: QueuePort
  /** Media processing: probe, renditions, snapshots, logo insertion (encoder-ffmpeg); optional until the pipeline needs it. */
  encoder: EncoderPort
  /** Speech to text for automatic captions (transcriber-pocketsphinx, transcriber-command); optional. */
  transcriber: TranscriberPort
}

export type PortName = keyof KernelPorts

/** Ports that must have exactly one provider before the kernel serves. */
export const REQUIRED_PORTS: readonly PortName[] = ['credentials', 'accessGrants', 'storage']

export class PortRegistry {
  private readonly providers = new Map<PortName, { owner: string; impl: unknown }[]>()

  provide<P extends PortName>(owner: string, name: P, impl: KernelPorts[P]): void {
    const list = this.providers.get(name) ?? []
    list.push({ owner, impl })
    this.providers.set(name, list)
  }

  get<P extends PortName>(name: P): KernelPorts[P] {
    const list = this.providers.get(name)
    if (!list?.length) throw new Error(`no plugin provides the "${name}" port; enable one in the "plugins" config key`)
    return list[0]!.impl as KernelPorts[P]
  }

  has(name: PortName): boolean {
    return (this.providers.get(name)?.length ?? 0) > 0
  }

  /** Throws unless every required port has exactly one provider. */
  check(required: readonly PortName[] = REQUIRED_PORTS): void {
    const problems: string[] = []
    for (const name of required) {
      const owners = (this.providers.get(name) ?? []).map((p) => p.owner)
      if (owners.length === 0) problems.push(`port "${name}" has no provider: enable a plugin that provides it`)
      if (owners.length > 1) problems.push(`port "${name}" has several providers (${owners.join(', ')}): keep one`)
    }
    for (const [name, list] of this.providers) {
      if (!required.includes(name) && list.length > 1) {
        problems.push(`port "${name}" has several providers (${list.map((p) => p.owner).join(', ')}): keep one`)
      }
    }
    if (problems.length) throw new Error(problems.join('\n'))
  }
}
