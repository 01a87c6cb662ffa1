import { type EntityManager, type EventHandler, type Reader, transactionReader } from '../../src/kernel/index.js'
import { type FileView, fileQueries } from '../files/index.js'
import { platformQueries } from '../platforms/index.js'
import type { ResourceAnnounced } from '../resources/index.js'
import { type WebhookEvent, publish } from './webhook-publish.service.js'
import type { WebhooksDeps } from './webhooks.deps.js'

/** The events of the other plugins that make webhook events. */
type Sources =
  | 'file.uploaded'
  | 'file.encoded'
  | 'file.encoding_failed'
  | 'file.encoding_progress'
  | 'file.deleted'
  | 'resource.created'
  | 'resource.updated'
  | 'resource.deleted'
  | 'user.created'

/** The handler of each event webhooks listen to, by event (index.ts subscribes them). */
export type WebhookListeners = { [E in Sources]: EventHandler<E> }

/** What a file's event says of it. */
type SentFile = Pick<FileView, 'slug' | 'name' | 'platformId'> & { type?: string; size?: number }

/** Most files whose last progress event is remembered (throttling); past it the memory starts over. */
const PROGRESS_MEMORY = 10_000

/**
 * Turns the plugins' changes into webhook events, each inside the transaction of the change
 * (so an event exists if and only if its change was committed): files uploaded, encoded,
 * failed, deleted and their encoding's progress (throttled per file); resources created,
 * updated, deleted; users created.
 */
export function webhookListeners(deps: WebhooksDeps): WebhookListeners {
  const { links } = deps
  // Every read goes through the change's transaction (transactionReader): a second connection taken while it
  // holds its locks could wait on a pool held by transactions that wait on those locks.
  const platformOf = async (reader: Reader, id: number) => {
    const platform = await platformQueries.byId(reader, id)
    return { slug: platform?.slug ?? '', href: platform ? links.url('platform', platform.slug) : '' }
  }
  const send = async (em: EntityManager, event: Omit<WebhookEvent, 'data'>, data: Record<string, unknown>) => {
    const reader = transactionReader(em)
    // Nothing is read for platforms nobody listens to (kept per process: the subscriptions).
    if (!(await deps.publisher.subscribers(event.platformId, reader)).length) return
    await publish(deps.publisher, em, {
      ...event,
      data: { platform: await platformOf(reader, event.platformId), ...data },
    })
  }
  const fileData = (file: SentFile) => ({
    slug: file.slug,
    name: file.name,
    ...(file.type !== undefined ? { type: file.type } : {}),
    ...(file.size !== undefined ? { size: file.size } : {}),
    href: links.url('file', file.slug),
  })
  const resourceData = (resource: ResourceAnnounced) => ({
    slug: resource.slug,
    title: resource.title,
    href: links.url('resource', resource.slug),
    stream: { slug: resource.streamSlug, href: links.url('stream', resource.streamSlug) },
    file: { slug: resource.fileSlug, href: links.url('file', resource.fileSlug) },
  })
  const sendFile = (em: EntityManager, type: WebhookEvent['type'], file: SentFile, extra = {}) =>
    send(em, { type, platformId: file.platformId, subject: `file:${file.slug}` }, { file: fileData(file), ...extra })
  const sendResource = (em: EntityManager, type: WebhookEvent['type'], resource: ResourceAnnounced, extra = {}) =>
    send(
      em,
      { type, platformId: resource.platformId, subject: `resource:${resource.slug}` },
      { resource: resourceData(resource), ...extra },
    )
  /** A file's event, the file read in the change's transaction. */
  const fileEvent = async (em: EntityManager, type: WebhookEvent['type'], fileId: number, extra = {}) => {
    const file = await fileQueries.fileById(transactionReader(em), fileId)
    if (file) await sendFile(em, type, file, extra)
  }
  const lastProgress = new Map<number, number>()

  return {
    'file.uploaded': ({ em, file }) => sendFile(em, 'file.uploaded', file),
    'file.encoded': ({ em, fileId }) => fileEvent(em, 'file.encoded', fileId),
    'file.encoding_failed': ({ em, fileId, reason }) => fileEvent(em, 'file.encoding_failed', fileId, { reason }),
    'file.encoding_progress': async ({ em, fileId, progress }) => {
      const now = Date.now()
      const last = lastProgress.get(fileId)
      if (progress < 100 && last !== undefined && now - last < deps.config.progress_interval * 1000) return
      if (lastProgress.size >= PROGRESS_MEMORY) lastProgress.clear()
      lastProgress.set(fileId, now)
      await fileEvent(em, 'file.encoding_progress', fileId, { progress })
    },
    'file.deleted': async ({ em, files }) => {
      for (const file of files) await sendFile(em, 'file.deleted', file)
    },
    'resource.created': ({ em, resource }) => sendResource(em, 'resource.created', resource),
    'resource.updated': ({ em, resource, changed }) => sendResource(em, 'resource.updated', resource, { changed }),
    'resource.deleted': async ({ em, resources }) => {
      for (const resource of resources) await sendResource(em, 'resource.deleted', resource)
    },
    'user.created': ({ em, user }) =>
      send(
        em,
        { type: 'user.created', platformId: user.platformId, subject: `user:${user.username}` },
        {
          user: { username: user.username, href: links.url('user', user.username) },
        },
      ),
  }
}
