import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** A media: a public site (a portal) of a platform, with its own domain, holding streams and channels. */
export interface Media {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  name: string
  /** The site's host name, lowercase, unique across the installation. */
  domain: string
  /** Plain text or HTML, shown as sent. */
  description: string
  /** Administrative contact. */
  contactEmail: string
  /** Most streams the media may hold; 0 is unlimited. */
  maxStreams: number
  platform: Platform
  createdAt: Date
}

export const MediaEntity = new EntitySchema<Media>({
  name: 'Media',
  tableName: 'medias',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    domain: { type: 'string', length: 255, unique: true },
    description: { type: 'text' },
    contactEmail: { type: 'string', length: 255 },
    maxStreams: { type: 'integer' },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
