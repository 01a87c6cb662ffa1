import { createHash } from 'node:crypto'
import { expect } from 'vitest'
// The benchmark's own data (plain JavaScript shared with bench/publishing.js).
import { type PublishingData, makePublishingData } from '../../../bench/publishing-data.js'
import type { TestApp } from '../../helpers/app.js'
import { TEST_PG_URL } from '../../helpers/database.js'

/** The publishing benchmark's data (media, stream, file and renditions, `resources` resources) made on `app` as its administrator. */
export async function publishingDataOn(app: TestApp, resources: number, now?: Date): Promise<PublishingData> {
  const knex = app.kernel.em().getKnex()
  const realm = app.kernel.config.auth.realm
  return makePublishingData({
    url: app.url,
    cred: { username: 'admin', ha1: createHash('md5').update(`admin:${realm}:${app.admin.apiKey}`).digest('hex') },
    knex,
    user: (await knex('users').where({ username: 'admin' }).first('id')) as { id: number },
    platform: (await knex('platforms').first('id')) as { id: number },
    resources,
    postgres: Boolean(TEST_PG_URL),
    now,
  })
}

/** A user of `app` with the default-viewer profile and role on `media` (no view_protected); their API key. */
export async function viewerOn(app: TestApp, media: string, username: string): Promise<string> {
  const viewer = await app.createUser({ username })
  expect((await app.client.put(`/user/${username}`, { form: { profile: 'default-viewer' } })).status).toBe(200)
  const access = await app.client.post(`/user/${username}/accesses`, { form: { media, role: 'default-viewer' } })
  expect(access.status, access.body).toBe(201)
  return viewer.apiKey
}
