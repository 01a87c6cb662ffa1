import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp } from '../../helpers/app.js'
import { text } from '../../helpers/xml.js'
import { fileRow, storedKeys } from '../files/files.helpers.js'
import {
  FAST_ENCODER,
  fileInfo,
  makeMedia,
  renditionRows,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from './encoding.helpers.js'

describe('time limits', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startEncodingApp({
      config: {
        jobs: { concurrency: 1, max_attempts: 1, backoff: 0.2, time_limit: 0.3 },
        'encoder-ffmpeg': { ...FAST_ENCODER, video: { ...FAST_ENCODER.video, preset: 'medium' } },
      },
    })
  })
  afterAll(async () => app?.close())

  it("the job's time limit on its last attempt: failed, with the reason, nothing kept", async () => {
    const client = await app.createUser({ username: 'hank' })
    const slug = await uploadMedia(client, await makeMedia('video', { seconds: 20, size: '640x480' }), 'slow.mp4')
    expect((await waitForStatus(client, slug)).at(-1)!.status).toBe('failed')
    expect(text((await fileInfo(client, slug)).encoding_error)).toBe(
      'the encoding was stopped: time limit of 0.3 s passed',
    )
    const row = (await fileRow(app, slug))!
    expect(await renditionRows(app, row.id)).toEqual([])
    expect((await storedKeys(app)).filter((key) => key.startsWith(row.storagePrefix))).toEqual([row.storageKey])
  })
})
