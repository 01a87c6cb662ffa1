/** Types of publishing-data.js for the TypeScript test that shares it (test/plugins/resources/publishing-answers.test.ts). */
import type { Knex } from '@mikro-orm/knex'

export interface PublishingData {
  media: string
  stream: string
  resource: string
  fileSlug: string
  resources: number
  insertMs: number
}

export function makePublishingData(options: {
  url: string
  cred: { username: string; ha1: string }
  knex: Knex
  user: { id: number }
  platform: { id: number }
  resources: number
  postgres: boolean
  now?: Date
}): Promise<PublishingData>
