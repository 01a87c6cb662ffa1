/**
 * The publishing data of the benchmark (bench/publishing.js) and of the test that keeps its
 * answers byte for byte (test/plugins/resources/publishing-answers.test.ts): a media, a stream of
 * `resources` resources publishing one finished 1080p lecture (its renditions written as the
 * encoding pipeline writes them), two metadata definitions with the file's values, two
 * subtitles, and the last resource made through the API with two widgets. Plain JavaScript:
 * the bench runs it against the compiled server, the test against the sources.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { digestFetch } from './digest.js'

/** A media file as the pipeline leaves a 1080p lecture: sizes and run prefix like a real run's. */
const DURATION = 1834.56
export const RENDITIONS = [
  ['flavor', '1080p', 'flavor-1080p.mp4', 612_402_117, 'video/mp4', 1920, 1080, DURATION],
  ['flavor', '720p', 'flavor-720p.mp4', 371_228_040, 'video/mp4', 1280, 720, DURATION],
  ['flavor', '480p', 'flavor-480p.mp4', 168_511_902, 'video/mp4', 854, 480, DURATION],
  ['flavor', '360p', 'flavor-360p.mp4', 96_310_448, 'video/mp4', 640, 360, DURATION],
  ['hls', 'hls', 'hls/', 1_263_980_331, 'application/vnd.apple.mpegurl', 1920, 1080, DURATION],
  ['thumbnail', 'thumbnail', 'thumbnail-thumbnail.jpg', 18_204, 'image/jpeg', 640, 360, null],
  ...Array.from({ length: 10 }, (_, i) => [
    'snapshot',
    String(i),
    `snapshot-${i}.jpg`,
    17_000 + 211 * i,
    'image/jpeg',
    1920,
    1080,
    null,
  ]),
]
const SOURCE_BYTES = 1_480_327_904

const SRT = (line) => `1\n00:00:00,000 --> 00:00:04,200\n${line}\n\n2\n00:00:04,400 --> 00:00:09,000\n...\n`

const DESCRIPTION =
  'Recorded in the main lecture hall. Slides, exercises and the reading list are on the course page; questions ' +
  'go to the forum. This session covers the material of chapters 3 and 4.'

/** A multipart/form-data body of text fields and files (`{ name, value }` or `{ name, filename, data }`). */
export function multipart(parts) {
  const boundary = `mediactl-bench-${randomBytes(8).toString('hex')}`
  const chunks = []
  for (const part of parts) {
    const disposition = part.filename
      ? `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/octet-stream`
      : `form-data; name="${part.name}"`
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`))
    chunks.push(Buffer.from(part.data ?? part.value))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` }
}

/** The text of the first `<slug>` of an XML answer. */
export const slugIn = (xml) => /<slug><!\[CDATA\[([^\]]*)\]\]><\/slug>/.exec(xml)?.[1] ?? null

/**
 * Makes the data through the API of the server at `url` (as the admin `cred`: `{ username, ha1 }`)
 * and, for the rows the API has no way to write (a finished file, 9,999 resources), with `knex`.
 * `now` fixes every date (the test compares answers). Resolves with the slugs and counts.
 */
export async function makePublishingData({ url, cred, knex, user, platform, resources, postgres, now = new Date() }) {
  /** One API request to this server (a form, or a multipart body); its XML answer, which must have `status`. */
  const call = async (method, path, status, form) => {
    const isMultipart = Array.isArray(form)
    const body = isMultipart ? multipart(form) : { body: new URLSearchParams(form).toString() }
    const type = isMultipart ? body.type : 'application/x-www-form-urlencoded'
    const res = await digestFetch(url, cred, method, path, { 'Content-Type': type }, body.body)
    const text = res.body.toString('utf8')
    if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}, not ${status}: ${text}`)
    return text
  }

  const media = slugIn(
    await call('POST', '/platform/default/medias', 201, {
      name: 'Campus TV',
      domain_name: 'tv.campus.example',
      domain: 'tv.campus.example',
      contact_email: 'tv@campus.example',
      max_streams: 0,
    }),
  )
  const stream = slugIn(
    await call('POST', `/media/${media}/streams`, 201, {
      title: 'Lectures',
      subtitle: 'Every lecture of the year',
      visibility: 'visible',
    }),
  )
  await call('POST', '/platform/default/metadata', 201, { name: 'Speaker', type: 'varchar', file_type: 'video,audio' })
  await call('POST', '/platform/default/metadata', 201, {
    name: 'Genre',
    type: 'choice',
    file_type: 'video,audio',
    default_value: 'lecture,seminar,interview',
  })

  // The file and its renditions, as the upload and the encoding pipeline write them.
  const prefix = `files/${randomBytes(12).toString('hex')}/`
  const run = `${prefix}renditions/${randomBytes(6).toString('hex')}/`
  const fileSlug = 'lecture-mp4'
  const renditionBytes = RENDITIONS.reduce((sum, r) => sum + r[3], 0)
  await knex('files').insert({
    slug: fileSlug,
    name: 'lecture.mp4',
    size: SOURCE_BYTES,
    stored_bytes: SOURCE_BYTES + renditionBytes,
    type: 'video',
    mime_type: 'video/mp4',
    encoding_status: 5, // finished (ENCODING_STATUSES in plugins/files/files.types.ts)
    encoding_progress: 100,
    encoding_error: null,
    storage_key: `${prefix}source`,
    storage_prefix: prefix,
    metadata: JSON.stringify({}),
    user_id: user.id,
    platform_id: platform.id,
    directory_id: null,
    created_at: now,
    updated_at: now,
  })
  const { id: fileId } = await knex('files').where({ slug: fileSlug }).first('id')
  await knex('renditions').insert(
    RENDITIONS.map(([kind, name, key, size, mimeType, width, height, duration]) => ({
      file_id: fileId,
      kind,
      name,
      storage_key: `${run}${key}`,
      size,
      mime_type: mimeType,
      width,
      height,
      duration,
      selected: kind === 'snapshot' && name === '0',
      created_at: now,
    })),
  )
  await call('PUT', `/file/${fileSlug}`, 200, { 'metadata[Speaker]': 'Ada Lovelace', 'metadata[Genre]': 'lecture' })
  for (const [language, line] of [
    ['en', 'Good morning, everyone.'],
    ['fr', 'Bonjour à toutes et à tous.'],
  ]) {
    await call('POST', `/file/${fileSlug}/subtitles`, 201, [
      { name: 'language', value: language },
      { name: 'subtitle', filename: `lecture.${language}.srt`, data: Buffer.from(SRT(line)) },
    ])
  }

  // The stream's resources: all but the last with one batched insert in one transaction.
  const { id: streamId } = await knex('streams').where({ slug: stream }).first('id')
  const speaker = await knex('metadata_definitions').where({ platform_id: platform.id, name: 'Speaker' }).first('id')
  const insertAt = performance.now()
  const rows = []
  for (let i = 1; i < resources; i++) {
    const n = String(i).padStart(5, '0')
    const at = new Date(now.getTime() - (resources - i) * 60_000)
    rows.push({
      slug: `lecture-${n}`,
      title: `Lecture ${n}`,
      subtitle: `Chapter ${(i % 12) + 1}`,
      description: DESCRIPTION,
      published_at: at,
      visibility: 'visible',
      views: (i * 37) % 1000,
      metadata: JSON.stringify({ [speaker.id]: 'Grace Hopper' }),
      file_id: fileId,
      stream_id: streamId,
      created_at: at,
      updated_at: at,
    })
  }
  await knex.transaction((trx) => knex.batchInsert('resources', rows, 500).transacting(trx))
  const insertMs = Math.round(performance.now() - insertAt)

  // The last one through the API, with its widgets: the resource of the info scenario.
  const last = String(resources).padStart(5, '0')
  const resource = slugIn(
    await call('POST', `/stream/${stream}/resources`, 201, {
      file: fileSlug,
      title: `Lecture ${last}`,
      subtitle: 'Kinematics',
      description: DESCRIPTION,
      visibility: 'visible',
      'metadata[Speaker]': 'Grace Hopper',
    }),
  )
  await call('POST', `/resource/${resource}/widgets`, 201, { name: 'Course page', size: '640x360' })
  await call('POST', `/resource/${resource}/widgets`, 201, { name: 'Blog', size: '480x270' })
  const [{ count }] = await knex('resources').where({ stream_id: streamId }).count({ count: '*' })
  // PostgreSQL plans from table statistics, which autovacuum gathers soon after a bulk insert on
  // a production server; a test server may run without autovacuum (the planner then guesses
  // 13 rows for the stream and sorts the 10,000 on disk). SQLite: mediactl never runs ANALYZE.
  if (postgres) await knex.raw('vacuum analyze')
  return { media, stream, resource, fileSlug, resources: Number(count), insertMs }
}
