import { tokensWith } from '../../../src/kernel/index.js'
import { constants, publicEncrypt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  AccessEntity,
  GroupEntity,
  GroupMemberEntity,
  ProfileEntity,
  RoleEntity,
  UserEntity,
  createUser,
} from '../../../plugins/identity/index.js'
import { Readable } from 'node:stream'
import { ChannelEntity, FEED_CHANNEL_TYPE } from '../../../plugins/channels/index.js'
import { RenditionEntity } from '../../../plugins/encoding/index.js'
import { DirectoryEntity, StoredFileEntity } from '../../../plugins/files/index.js'
import { MediaEntity } from '../../../plugins/media/index.js'
import { createMedia } from '../../../plugins/media/media.service.js'
import { MetadataDefinitionEntity } from '../../../plugins/metadata/index.js'
import { PlayerBehaviorEntity, PlayerThemeEntity } from '../../../plugins/players/index.js'
import { BEHAVIORS } from '../../../plugins/players/player-behavior.family.js'
import { THEMES } from '../../../plugins/players/player-theme.family.js'
import { createPlayer } from '../../../plugins/players/player.service.js'
import { consumeRecorderCode, issueRecorderCode } from '../../../plugins/recorder/index.js'
import { ResourceEntity, resourceToken } from '../../../plugins/resources/index.js'
import { StreamEntity, type Visibility } from '../../../plugins/streams/index.js'
import { SubtitleEntity } from '../../../plugins/subtitles/index.js'
import { WidgetEntity } from '../../../plugins/widgets/index.js'
import { createWebhook } from '../../../plugins/webhooks/index.js'
import { WebhookDeliveryEntity } from '../../../plugins/webhooks/webhook-delivery.entity.js'
import { WebhookEntity } from '../../../plugins/webhooks/webhook.entity.js'
import { WebhookMessageEntity } from '../../../plugins/webhooks/webhook-message.entity.js'
import { type Platform, PlatformEntity, createPlatform } from '../../../plugins/platforms/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'

/**
 * Fixtures of the authorization matrix: two tenants (P, the platform every row acts on, and
 * Q, the other tenant), the six actors, and fresh targets made directly with the ORM.
 */

/** The six callers of every matrix row (docs/authorization.md, "The model"). */
export const ACTORS = ['admin', 'platformAdmin', 'withRight', 'without', 'otherTenant', 'inactive'] as const
export type Actor = (typeof ACTORS)[number]

/**
 * What a per-row user of P holds: exactly these profile flags, and optionally a role with
 * these role flags granted on P, to the user directly or to a group they belong to.
 */
export interface Grant {
  profile: string[]
  role?: string[]
  via?: 'user' | 'group'
  /** The role's access is on P's media (stream, resource) instead of the platform. */
  on?: Publishing
}

/** The kinds of the access tree below platforms, as `TenantObjects` names their objects. */
export type Publishing = 'media' | 'stream' | 'resource'

/** An object of the access tree, by kind and id. */
export interface ObjectRef {
  kind: string
  id: number
}

/** A password every user made here has (so `/user/<username>/authenticate` can be checked). */
export const PASSWORD = 'Matrix-pass-1'

/** The objects of P (or Q) that read-only rows and the leak probes address. */
export interface TenantObjects {
  platform: Platform
  /** Prefix of every name made on the tenant (`alpha` on P, `beta` on Q). */
  prefix: string
  /** Slug of the platform's default Administrator profile. */
  adminProfile: string
  /** A user with a flagless profile, a password, an access and a group membership. */
  user: string
  /** A group with `user` as member and an access. */
  group: string
  /** A role granting exactly platform.view (what every actor holding platform.view may grant). */
  role: string
  /** A flagless profile (given to new users: every caller holds all its flags). */
  profile: string
  /** The access of `user` (role `role` on the platform). */
  userAccess: string
  /** The access of `group`. */
  groupAccess: string
  /** A metadata definition of the platform. */
  metadata: string
  /** A directory of `user`. */
  directory: string
  /**
   * A file of `user`, in `directory`, with media as the pipeline records them (see
   * `mediaFile`) and a WebVTT subtitle (`SUBTITLE`).
   */
  file: string
  /** A media (with its default channels and an online api channel), with an access of `user`. */
  media: string
  /** A channel of `media` (one of those seeded on creation: its online web channel, which opens its portal). */
  channel: string
  /** An online syndication channel of `media` (its RSS feed). */
  feed: string
  /** A visible stream of `media`, with an access of `user`. */
  stream: string
  /** A hidden stream of `media`, with an access of `user`. */
  hiddenStream: string
  /** A draft stream of `media`. */
  draftStream: string
  /** A visible resource of `stream`, published from `file`, with an access of `user`. */
  resource: string
  /** A hidden resource of `stream`, published from `file`. */
  hiddenResource: string
  /** A visible resource of `hiddenStream` (not public either), published from `file`. */
  resourceInHiddenStream: string
  /** A draft resource of `stream`, published from `file`. */
  draftResource: string
  /** A widget of `resource`. */
  widget: string
  /** A player theme of the platform (one of those seeded on creation). */
  theme: string
  /** A player behavior of the platform (one of those seeded on creation). */
  behavior: string
  /** A webhook of the platform (its id), with one delivery (`delivery`, its id). */
  webhook: string
  delivery: string
  /** A failed job of `file` (its number). */
  job: string
}

/** Where the matrix's webhooks point: loopback, a port nobody listens on (deliveries fail, nothing leaves the machine). */
export const HOOK_URL = 'http://127.0.0.1:9/hook'

/** The player settings of a platform, by kind (the path segment of their routes). */
export type PlayerKind = 'player_theme' | 'player_behavior'

/** The public id of the subtitle of every file made by `addSubtitle`. */
export const SUBTITLE = `${'0'.repeat(40)}.fr.vtt`

let counter = 0
/** A name unique in the test process. */
export const unique = (prefix: string): string => `${prefix}-${(counter += 1)}`

/** The entities `World.exists` looks in, by name. */
const EXISTS_ENTITIES = {
  platform: PlatformEntity,
  user: UserEntity,
  group: GroupEntity,
  role: RoleEntity,
  profile: ProfileEntity,
  access: AccessEntity,
  member: GroupMemberEntity,
  metadata: MetadataDefinitionEntity,
  directory: DirectoryEntity,
  file: StoredFileEntity,
  subtitle: SubtitleEntity,
  media: MediaEntity,
  stream: StreamEntity,
  resource: ResourceEntity,
  channel: ChannelEntity,
  widget: WidgetEntity,
  webhook: WebhookEntity,
  webhook_message: WebhookMessageEntity,
  player_theme: PlayerThemeEntity,
  player_behavior: PlayerBehaviorEntity,
} as const

export class World {
  p!: TenantObjects
  q!: TenantObjects
  private readonly clients = new Map<string, Promise<DigestClient>>()

  constructor(readonly app: TestApp) {}

  /** Creates P and Q with their objects. */
  static async create(app: TestApp): Promise<World> {
    const world = new World(app)
    world.p = await world.tenant('Tenant Alpha', 'alpha')
    world.q = await world.tenant('Tenant Beta', 'beta')
    return world
  }

  em() {
    return this.app.kernel.em()
  }

  private async tenant(name: string, prefix: string): Promise<TenantObjects> {
    const platform = await createPlatform(this.app.kernel.emit, this.em(), { name, maxUsers: 0, maxSpace: 0 })
    const admin = await this.em().findOneOrFail(ProfileEntity, { platform: platform.id, name: 'Administrator' })
    const partial = { platform, prefix, adminProfile: admin.slug }
    const profile = await this.profile(platform, [])
    const role = await this.role(platform, ['platform.view'])
    const user = await this.user(platform, profile)
    const group = await this.group(platform, [user])
    const userAccess = await this.access(platform, { user }, role)
    const groupAccess = await this.access(platform, { group }, role)
    const metadata = await this.metadata(platform)
    const directory = await this.directory(user)
    const file = await this.mediaFile(user, directory)
    await this.addSubtitle(file)
    const media = await this.media(platform)
    await this.channel(media)
    const feed = await this.channel(media, FEED_CHANNEL_TYPE)
    const stream = await this.stream(media)
    const hiddenStream = await this.stream(media, 'hidden')
    const draftStream = await this.stream(media, 'draft')
    const resource = await this.resource(stream, file)
    const hiddenResource = await this.resource(stream, file, 'hidden')
    const resourceInHiddenStream = await this.resource(hiddenStream, file)
    const draftResource = await this.resource(stream, file, 'draft')
    for (const [kind, slug] of [
      ['media', media],
      ['stream', stream],
      ['stream', hiddenStream],
      ['resource', resource],
    ] as const) {
      await this.access(platform, { user }, role, await this.refOf(kind, slug))
    }
    const widget = await this.widget(resource)
    const em = this.em()
    const first = { orderBy: { id: 1 } } as const
    const channel = (await em.findOneOrFail(ChannelEntity, { media: { slug: media } }, first)).slug
    const theme = (await em.findOneOrFail(PlayerThemeEntity, { platform: platform.id }, first)).slug
    const behavior = (await em.findOneOrFail(PlayerBehaviorEntity, { platform: platform.id }, first)).slug
    const webhook = await this.webhook(platform)
    const delivery = await this.delivery(webhook)
    // A number no answer holds by chance: the leak probes replace it in bodies.
    const job = await this.job(file, 'failed', prefix === 'alpha' ? 7_340_001 : 7_340_002)
    return {
      ...partial,
      ...{ profile, role, user, group, userAccess, groupAccess, metadata, directory, file },
      ...{ media, channel, feed, stream, hiddenStream, draftStream },
      ...{ resource, hiddenResource, resourceInHiddenStream, draftResource },
      ...{ widget, theme, behavior, webhook, delivery, job },
    }
  }

  /** The name prefix of a platform's objects. */
  prefixOf(platform: Platform): string {
    if (this.p?.platform.id === platform.id) return this.p.prefix
    if (this.q?.platform.id === platform.id) return this.q.prefix
    return platform.slug === 'tenant-alpha' ? 'alpha' : platform.slug === 'tenant-beta' ? 'beta' : platform.slug
  }

  /** A profile holding exactly `flags`; returns its slug. */
  async profile(platform: Platform, flags: string[]): Promise<string> {
    const em = this.em()
    const slug = unique(`${this.prefixOf(platform)}-profile`)
    em.create(ProfileEntity, {
      slug,
      name: slug,
      quota: 0,
      permissions: flags,
      platform: platform.id,
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A role granting exactly `flags`; returns its slug. */
  async role(platform: Platform, flags: string[]): Promise<string> {
    const em = this.em()
    const slug = unique(`${this.prefixOf(platform)}-role`)
    em.create(RoleEntity, { slug, name: slug, permissions: flags, platform: platform.id, createdAt: new Date() })
    await em.flush()
    return slug
  }

  /** A group with these members (usernames); returns its slug. */
  async group(platform: Platform, members: string[] = []): Promise<string> {
    const em = this.em()
    const slug = unique(`${this.prefixOf(platform)}-group`)
    const group = em.create(GroupEntity, { slug, name: slug, platform: platform.id, createdAt: new Date() })
    for (const username of members) {
      em.create(GroupMemberEntity, {
        group,
        user: await em.findOneOrFail(UserEntity, { username }),
        createdAt: new Date(),
      })
    }
    await em.flush()
    return slug
  }

  /** A metadata definition (varchar, for video); returns its slug. */
  async metadata(platform: Platform): Promise<string> {
    const em = this.em()
    const slug = unique(`${this.prefixOf(platform)}-metadata`)
    em.create(MetadataDefinitionEntity, {
      slug,
      name: slug,
      type: 'varchar',
      fileTypes: ['video'],
      isProtected: false,
      defaultValue: null,
      platform: platform.id,
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A directory of a user (in their root, or in `parent`); returns its slug. */
  async directory(username: string, parent?: string): Promise<string> {
    const em = this.em()
    const slug = unique(`${username}-directory`)
    em.create(DirectoryEntity, {
      slug,
      name: slug,
      user: await em.findOneOrFail(UserEntity, { username }),
      parent: parent ? await em.findOneOrFail(DirectoryEntity, { slug: parent }) : null,
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A small stored file of a user (bytes in storage, row pending), in their root or `directory`; returns its slug. */
  async file(username: string, directory?: string): Promise<string> {
    const em = this.em()
    const slug = unique(`${username}-file`)
    const prefix = `files/${slug.replace(/[^a-z0-9-]/g, '')}/`
    const bytes = Buffer.from(`%PDF-1.4 ${slug}`)
    await this.app.kernel.services.ports.get('storage').write(`${prefix}source`, Readable.from([bytes]))
    const user = await em.findOneOrFail(UserEntity, { username }, { populate: ['platform'] })
    em.create(StoredFileEntity, {
      slug,
      name: slug,
      size: bytes.length,
      storedBytes: bytes.length,
      type: 'document',
      mimeType: 'application/pdf',
      encodingStatus: 0,
      encodingProgress: 0,
      encodingError: null,
      storageKey: `${prefix}source`,
      storagePrefix: prefix,
      metadata: {},
      user,
      platform: user.platform,
      directory: directory ? await em.findOneOrFail(DirectoryEntity, { slug: directory }) : null,
      createdAt: new Date(),
      updatedAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A file of a user with one WebVTT subtitle (row and bytes); returns the file's slug and the subtitle's id. */
  async subtitledFile(username: string): Promise<{ file: string; subtitle: string }> {
    const file = await this.file(username)
    return { file, subtitle: await this.addSubtitle(file) }
  }

  /** Adds the WebVTT subtitle `SUBTITLE` (row and bytes) to a file; returns its id. */
  async addSubtitle(slug: string): Promise<string> {
    const em = this.em()
    const file = await em.findOneOrFail(StoredFileEntity, { slug })
    const subtitle = SUBTITLE
    const key = `${file.storagePrefix}subtitles/${subtitle}`
    await this.app.kernel.services.ports
      .get('storage')
      .write(key, Readable.from([Buffer.from('WEBVTT\n\n00:01.000 --> 00:02.000\nSalut\n')]))
    em.create(SubtitleEntity, {
      publicId: subtitle,
      language: 'fr',
      format: 'vtt',
      vttKey: key,
      sourceKey: key,
      file,
      createdAt: new Date(),
    })
    await em.flush()
    return subtitle
  }

  /**
   * A file of a user with media, as the pipeline records them (rows, bytes in storage): two
   * snapshots (`0` selected: the thumbnail), the video flavor `small`, the audio flavor `aac`
   * (`aac.m4a`), and an HLS folder (`master.m3u8`, `v/index.m3u8`, `v/seg-0.ts`); its slug.
   */
  async mediaFile(username: string, directory?: string): Promise<string> {
    const slug = await this.file(username, directory)
    const em = this.em()
    const file = await em.findOneOrFail(StoredFileEntity, { slug })
    const storage = this.app.kernel.services.ports.get('storage')
    const at = (name: string): string => `${file.storagePrefix}seeded/${name}`
    const rendition = (kind: 'snapshot' | 'flavor' | 'hls', name: string, key: string, mimeType: string) =>
      em.create(RenditionEntity, {
        file,
        kind,
        name,
        storageKey: key,
        size: 4,
        mimeType,
        width: null,
        height: null,
        duration: null,
        selected: kind === 'snapshot' && name === '0',
        createdAt: new Date(),
      })
    rendition('snapshot', '0', at('snapshot-0.jpg'), 'image/jpeg')
    rendition('snapshot', '1', at('snapshot-1.jpg'), 'image/jpeg')
    rendition('flavor', 'small', at('flavor-small.mp4'), 'video/mp4')
    rendition('flavor', 'aac', at('flavor-aac.m4a'), 'audio/mp4')
    rendition('hls', 'hls', at('hls/'), 'application/vnd.apple.mpegurl')
    await em.flush()
    const names = ['snapshot-0.jpg', 'snapshot-1.jpg', 'flavor-small.mp4', 'flavor-aac.m4a', 'hls/master.m3u8']
    for (const name of [...names, 'hls/v/index.m3u8', 'hls/v/seg-0.ts']) {
      await storage.write(at(name), Readable.from([Buffer.from(name.endsWith('.m3u8') ? '#EXTM3U\n' : 'data')]))
    }
    return slug
  }

  /**
   * Files of a user for a logo insertion: a video that finished encoding and an image (rows
   * and bytes; the bytes are no real media, so the insertion itself fails later); their slugs.
   */
  async logoFiles(username: string): Promise<{ video: string; logo: string }> {
    const video = await this.file(username)
    const logo = await this.file(username)
    const em = this.em()
    await em.nativeUpdate(
      StoredFileEntity,
      { slug: video },
      { type: 'video', mimeType: 'video/mp4', encodingStatus: 5, encodingProgress: 100 },
    )
    await em.nativeUpdate(StoredFileEntity, { slug: logo }, { type: 'image', mimeType: 'image/png' })
    return { video, logo }
  }

  /** The id of a file's selected snapshot, or null. */
  async selectedSnapshot(slug: string): Promise<string | null> {
    const em = this.em()
    const file = await em.findOneOrFail(StoredFileEntity, { slug })
    return (await em.findOne(RenditionEntity, { file, kind: 'snapshot', selected: true }))?.name ?? null
  }

  /** A media of a platform, made as the API makes it (its default channels seeded); returns its slug. */
  async media(platform: Platform): Promise<string> {
    const name = unique(`${this.prefixOf(platform)}-media`)
    const media = await createMedia(this.app.kernel.emit, this.em(), platform.id, {
      name,
      domain: `${name}.example.org`,
      contactEmail: `${name}@example.org`,
    })
    return media.slug
  }

  /**
   * A channel of a media, online unless `isOnline` is false (by default of type api, which
   * offers the original of its resources: `/resource/<slug>/source`); returns its slug.
   */
  async channel(media: string, type = 'api', isOnline = true): Promise<string> {
    const em = this.em()
    const slug = unique(`${media}-${type}`)
    em.create(ChannelEntity, {
      slug,
      name: slug,
      type,
      isOnline,
      theme: null,
      skin: null,
      media: await em.findOneOrFail(MediaEntity, { slug: media }),
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A webhook of a platform, pointing at `HOOK_URL`; returns its public id. */
  async webhook(platform: Platform, description = unique('hook')): Promise<string> {
    const { publicId } = await createWebhook(this.em(), platform.id, {
      url: HOOK_URL,
      // Tests only: nothing else the matrix does is sent.
      events: ['webhook.test'],
      description,
    })
    return publicId
  }

  /** Whether a webhook (by public id) has an event matching `where` (`{ state: 'pending' }`). */
  async webhookHasEvent(webhook: string, where: object): Promise<boolean> {
    const { id } = await this.em().findOneOrFail(WebhookEntity, { publicId: webhook })
    return this.exists('webhook_message', { webhookId: id, ...where })
  }

  /** A delivery attempt of a test event of a webhook (by public id; failed: HTTP 500); returns its public id. */
  async delivery(publicId: string): Promise<string> {
    const em = this.em()
    const now = new Date()
    const webhook = (await em.findOneOrFail(WebhookEntity, { publicId })).id
    const eventId = unique('msg_matrix')
    const messageId = await em.insert(WebhookMessageEntity, {
      webhookId: Number(webhook),
      eventId,
      type: 'webhook.test',
      subject: `webhook:${webhook}`,
      body: '{}',
      state: 'failed',
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    })
    const delivery = unique('delivery').replace('-', '').padEnd(16, '0').slice(0, 16)
    await em.insert(WebhookDeliveryEntity, {
      publicId: delivery,
      webhookId: Number(webhook),
      messageId: Number(messageId),
      attempt: 1,
      status: 500,
      error: null,
      durationMs: 3,
      response: 'no',
      createdAt: now,
    })
    return delivery
  }

  /**
   * A job of a file (by slug), written straight into the jobs table: failed (no attempt left), or waiting with its
   * next try an hour away, so that the matrix's running jobs never take it while a row looks at it. Its payload names
   * no file: run once retried, it ends at once. `id`: its number, else the next. Returns its number.
   */
  async job(file: string, state: 'waiting' | 'failed', id?: number): Promise<string> {
    const { store } = this.app.kernel.jobs
    const now = store.at(new Date())
    const [row] = (await store
      .table()
      .insert({
        ...(id === undefined ? {} : { id }),
        type: 'encoding.encode',
        payload: JSON.stringify({ fileId: 0 }),
        state,
        attempts: state === 'failed' ? 3 : 0,
        max_attempts: 3,
        progress: 0,
        last_error: state === 'failed' ? 'failed on purpose (matrix)' : null,
        key: null,
        live_key: null,
        subject: file,
        run_after: store.at(new Date(Date.now() + 3600_000)),
        lease_until: null,
        lease_owner: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')) as ({ id: number } | number)[]
    return String(typeof row === 'object' ? row.id : row)
  }

  /** A job's state now (undefined once it is gone). */
  async jobState(id: string): Promise<string | undefined> {
    return (await this.app.kernel.jobs.get(id))?.state
  }

  /** A widget of a resource (640x360, the player's defaults); returns its slug. */
  async widget(resource: string): Promise<string> {
    const em = this.em()
    const of = await em.findOneOrFail(ResourceEntity, { slug: resource })
    const slug = unique(`${resource}-widget`)
    em.create(WidgetEntity, {
      slug,
      name: slug,
      width: 640,
      height: 360,
      resource: of,
      playerTheme: null,
      playerBehavior: null,
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A player theme or behavior of a platform, with the family's default settings; returns its slug. */
  async player(kind: PlayerKind, platform: Platform): Promise<string> {
    const family = kind === 'player_theme' ? THEMES : BEHAVIORS
    const name = unique(`${this.prefixOf(platform)}-${kind.replace('_', '-')}`)
    const id = await createPlayer(this.em(), family as typeof THEMES, platform.id, { name, settings: {} })
    const entity = kind === 'player_theme' ? PlayerThemeEntity : PlayerBehaviorEntity
    return (await this.em().findOneOrFail(entity as typeof PlayerThemeEntity, { id })).slug
  }

  /**
   * A recorder code of the installation administrator: fresh (usable once), or already
   * `used`, or `expired` (issued an hour ago for ten minutes).
   */
  async recorderCode(state: 'fresh' | 'used' | 'expired' = 'fresh'): Promise<string> {
    const em = this.em()
    const admin = await em.findOneOrFail(UserEntity, { username: this.app.admin.username })
    const issuedAt = state === 'expired' ? new Date(Date.now() - 3600_000) : new Date()
    const { code } = await issueRecorderCode(em, admin.id, 600, issuedAt)
    if (state === 'used' && !(await consumeRecorderCode(em, code)).ok) throw new Error('the fresh code was refused')
    return code
  }

  /** A media of a platform whose web channel is offline (so it has no portal); returns its slug. */
  async mediaWithoutPortal(platform: Platform): Promise<string> {
    const slug = await this.media(platform)
    const em = this.em()
    const { id } = await em.findOneOrFail(MediaEntity, { slug })
    await em.nativeUpdate(ChannelEntity, { media: id, type: 'web' }, { isOnline: false })
    return slug
  }

  /** A stream at the top of a media; returns its slug. */
  async stream(media: string, visibility: Visibility = 'visible'): Promise<string> {
    const em = this.em()
    const owner = await em.findOneOrFail(MediaEntity, { slug: media }, { populate: ['platform'] })
    const slug = unique(`${this.prefixOf(owner.platform)}-stream`)
    em.create(StreamEntity, {
      slug,
      title: slug,
      subtitle: '',
      description: '',
      visibility,
      media: owner,
      parent: null,
      createdAt: new Date(),
    })
    await em.flush()
    return slug
  }

  /** A resource of a stream, published from a file; returns its slug. */
  async resource(stream: string, file: string, visibility: Visibility = 'visible'): Promise<string> {
    const em = this.em()
    const into = await em.findOneOrFail(StreamEntity, { slug: stream }, { populate: ['media.platform'] })
    const slug = unique(`${this.prefixOf(into.media.platform)}-resource`)
    const now = new Date()
    em.create(ResourceEntity, {
      slug,
      title: slug,
      subtitle: '',
      description: '',
      publishedAt: now,
      visibility,
      views: 0,
      metadata: {},
      file: await em.findOneOrFail(StoredFileEntity, { slug: file }),
      stream: into,
      createdAt: now,
      updatedAt: now,
    })
    await em.flush()
    return slug
  }

  /** The reference of a media, stream or resource in the access tree. */
  async refOf(kind: Publishing, slug: string): Promise<ObjectRef> {
    const entity = { media: MediaEntity, stream: StreamEntity, resource: ResourceEntity }[kind]
    const { id } = await this.em().findOneOrFail(entity as typeof MediaEntity, { slug })
    return { kind, id }
  }

  /** A media token of a resource (`?token=`), as its answers asked `with-token` give them. */
  async resourceToken(slug: string): Promise<string> {
    const { id } = await this.refOf('resource', slug)
    return resourceToken(tokensWith(this.app.kernel.services.secret), { id, slug }, 3600)
  }

  /** Makes a user a member of a group. */
  async member(group: string, username: string): Promise<void> {
    const em = this.em()
    em.create(GroupMemberEntity, {
      group: await em.findOneOrFail(GroupEntity, { slug: group }),
      user: await em.findOneOrFail(UserEntity, { username }),
      createdAt: new Date(),
    })
    await em.flush()
  }

  /**
   * An access of a user or a group granting `role` on a platform or an object below one
   * (`object`, default the access's own `platform`); returns its public id. Made with the
   * ORM, so it may also be a row the API never writes (pointing across platforms).
   */
  async access(
    platform: Platform,
    subject: { user: string } | { group: string },
    role: string,
    object: Platform | ObjectRef = platform,
  ): Promise<string> {
    const em = this.em()
    const publicId = `acc${String((counter += 1)).padStart(9, '0')}`
    em.create(AccessEntity, {
      publicId,
      user: 'user' in subject ? await em.findOneOrFail(UserEntity, { username: subject.user }) : null,
      group: 'group' in subject ? await em.findOneOrFail(GroupEntity, { slug: subject.group }) : null,
      objectKind: 'kind' in object ? object.kind : 'platform',
      objectId: object.id,
      role: await em.findOneOrFail(RoleEntity, { slug: role }),
      platform: platform.id,
      createdAt: new Date(),
    })
    await em.flush()
    return publicId
  }

  /** A user of `platform` with an existing profile (or an installation administrator); returns the username. */
  async user(
    platform: Platform,
    profile: string | 'instance-admin',
    options: { isActive?: boolean; username?: string } = {},
  ): Promise<string> {
    return (await this.userAndClient(platform, profile, options)).username
  }

  /** As `user`, with the Digest client of the new user. */
  async userAndClient(
    platform: Platform,
    profile: string | 'instance-admin',
    options: { isActive?: boolean; username?: string } = {},
  ): Promise<{ username: string; client: DigestClient }> {
    const em = this.em()
    const username = options.username ?? unique(`${this.prefixOf(platform)}-user`)
    const { apiKey } = await createUser(em, {
      platform,
      profile: profile === 'instance-admin' ? undefined : await em.findOneOrFail(ProfileEntity, { slug: profile }),
      admin: profile === 'instance-admin',
      username,
      email: `${username}@example.org`,
      password: PASSWORD,
      isActive: options.isActive,
      realm: this.app.kernel.config.auth.realm,
    })
    return { username, client: this.app.clientFor(username, apiKey) }
  }

  /** A client of a user of P holding `grant` (one user per distinct grant, made on first use). */
  clientWith(grant: Grant): Promise<DigestClient> {
    const key = JSON.stringify([
      [...grant.profile].sort(),
      [...(grant.role ?? [])].sort(),
      grant.via ?? null,
      grant.on ?? null,
    ])
    let client = this.clients.get(key)
    if (!client) {
      client = this.makeClient(grant)
      this.clients.set(key, client)
    }
    return client
  }

  private async makeClient(grant: Grant): Promise<DigestClient> {
    const { platform } = this.p
    const { username, client } = await this.userAndClient(platform, await this.profile(platform, grant.profile))
    if (grant.role) {
      const role = await this.role(platform, grant.role)
      const object = grant.on ? await this.refOf(grant.on, this.p[grant.on]) : platform
      if (grant.via === 'user') {
        await this.access(platform, { user: username }, role, object)
      } else {
        const group = await this.group(platform, [username])
        await this.access(platform, { group }, role, object)
      }
    }
    return client
  }

  /** Whether a row of `entity` matches `where` (fresh read). */
  async exists(entity: keyof typeof EXISTS_ENTITIES, where: object) {
    const em = this.em()
    return (await em.count(EXISTS_ENTITIES[entity] as typeof UserEntity, where as never)) > 0
  }

  /** Every name of P that other tenants must never see: slugs, usernames, access ids. */
  async namesOf(platform: Platform): Promise<string[]> {
    const em = this.em()
    const on = { platform: platform.id }
    return [
      platform.slug,
      ...(await em.find(UserEntity, on)).map((u) => u.username),
      ...(await em.find(GroupEntity, on)).map((g) => g.slug),
      ...(await em.find(RoleEntity, on)).map((r) => r.slug),
      ...(await em.find(ProfileEntity, on)).map((p) => p.slug),
      ...(await em.find(AccessEntity, on)).map((a) => a.publicId),
      ...(await em.find(MetadataDefinitionEntity, on)).map((m) => m.slug),
      ...(await em.find(StoredFileEntity, on)).map((f) => f.slug),
      ...(await em.find(DirectoryEntity, { user: { platform: platform.id } })).map((d) => d.slug),
      // Not the channels (nor the seeded themes and behaviors): their slugs are generic words.
      ...(await em.find(MediaEntity, on)).map((m) => m.slug),
      ...(await em.find(StreamEntity, { media: on })).map((s) => s.slug),
      ...(await em.find(ResourceEntity, { stream: { media: on } })).map((r) => r.slug),
      ...(await em.find(WidgetEntity, { resource: { stream: { media: on } } })).map((w) => w.slug),
    ]
  }

  /** `password` encrypted with the installation's public key (RSA-OAEP, SHA-256), in hex. */
  cipher(password = PASSWORD): string {
    const pem = readFileSync(join(this.app.dataDir, 'keys', 'public.pem'), 'utf8')
    return publicEncrypt(
      { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(password, 'utf8'),
    ).toString('hex')
  }
}
