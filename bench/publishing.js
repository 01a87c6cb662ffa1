/**
 * Publishing benchmark, part of `npm run bench` (bench/run.js calls `runPublishing` last;
 * `BENCH_ONLY=publish` runs it alone). docs/benchmarks.md, section Publishing, explains the
 * figures.
 *
 * What it measures, with autocannon over loopback, Digest-authenticated as in bench/run.js:
 *   1. resource info: `GET /resource/<slug>`, the richest answer of the publishing plugins
 *      (flavors chosen by the media's channels, the player, two widgets, metadata inherited
 *      from the file and overridden on the resource, two subtitles, the thumbnail);
 *   2. deep page: `GET /stream/<slug>/resources` with `Range: entities=9950-9999` over a
 *      stream of 10,000 resources (the last 50, in id order);
 *   3. both against the bare node:http child of bench/run.js replaying the same bytes.
 * On a mediactl child of its own (`--role=publishing`), on SQLite, or on PostgreSQL when
 * BENCH_DATABASE_URL is set: a fresh database is created on that server for the run and
 * dropped after it (as test/helpers/database.ts does), also on failure or Ctrl-C.
 *
 * The data (made by the child before it answers ready):
 *   - the `Default` platform and an installation administrator, as bench/run.js makes them;
 *   - through the API (requests to itself): a media (its defaults add the online web and
 *     widget channels), a stream, two metadata definitions (varchar and choice), the file's
 *     values (`PUT /file/<slug>`), two subtitles (SRT, `POST /file/<slug>/subtitles`), the
 *     last resource (`POST /stream/<slug>/resources`, with a resource value overriding the
 *     file's) and its two widgets;
 *   - with knex: the file row (a 1080p video, `finished`) and its 16 rendition rows, written
 *     as the encoding pipeline writes them (4 MP4 flavors, the HLS folder, the thumbnail and
 *     10 snapshots, the first selected; copied from a real run of the pipeline, see
 *     docs/benchmarks.md), then the other 9,999 resources of the stream, one batched insert in
 *     one transaction, with the columns the API wrote for the last one.
 * Every resource publishes the same file: each answer reads one file's renditions.
 *
 * Rounds (BENCH_PUBLISH_ROUNDS, default 2): each round runs each scenario on the bare server
 * and on mediactl (warm-up, then measured run, fresh nonces each time), so the ratio of a
 * round compares runs a few seconds apart, then the deep page on mediactl once more from a
 * single connection (the answer's own latency, without the queue of 50 connections;
 * informative). The report gives every round: docs/benchmarks.md shows the better and the
 * worse. Goals: resource info at 30% or more of the bare server's req/s; the deep page's p99
 * under 50 ms on PostgreSQL (at the usual connections; shown on SQLite too).
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_DATABASE_URL [unset]  a PostgreSQL server URL (`postgres://postgres@127.0.0.1:5432/test`):
 *                               the database in it is used to create and drop the run's own
 *   BENCH_RESOURCES [10000]     resources in the stream (the deep page is the last 50)
 *   BENCH_PUBLISH_ROUNDS [2]    rounds of the two scenarios
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { authorization, challenge, digestFetch, fetchRaw, md5 } from './digest.js'

export const publishSettings = {
  databaseUrl: process.env.BENCH_DATABASE_URL || '',
  resources: Math.max(50, Number(process.env.BENCH_RESOURCES ?? 10_000)),
  rounds: Math.max(1, Number(process.env.BENCH_PUBLISH_ROUNDS ?? 2)),
}

/**
 * Goals of the publishing issue: resource info at >= 30% of the bare server's req/s; the deep
 * page's p99 under 50 ms on PostgreSQL (reported on SQLite too).
 */
export const PUBLISH_GOAL = { ratio: 0.3, p99: 50 }

/** Resources per page of the deep-page scenario. */
const PAGE = 50

// ---------------------------------------------------------------------------------------
// The database of the run.
// ---------------------------------------------------------------------------------------

/** '' (SQLite in the child's data dir), or a fresh PostgreSQL database on BENCH_DATABASE_URL's server. */
async function freshDatabase(serverUrl) {
  if (!serverUrl) return { url: '', name: 'SQLite', drop: async () => undefined }
  const { default: pg } = await import('pg')
  const name = `mediactl_bench_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const [{ server_version: version }] = (await admin.query('show server_version')).rows
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  let dropped = false
  return {
    url: url.toString(),
    name: `PostgreSQL ${String(version).split(' ')[0]}`,
    async drop() {
      if (dropped) return
      dropped = true
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}

// ---------------------------------------------------------------------------------------
// Child: the mediactl server with the publishing data.
// ---------------------------------------------------------------------------------------

/** A media file as the pipeline leaves a 1080p lecture: sizes and run prefix like a real run's. */
const DURATION = 1834.56
const RENDITIONS = [
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
function multipart(parts) {
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
const slugIn = (xml) => /<slug><!\[CDATA\[([^\]]*)\]\]><\/slug>/.exec(xml)?.[1] ?? null

/**
 * The publishing server (`--role=publishing` of bench/run.js): waits for `{ database, log }`
 * from the parent, boots the compiled kernel on a temporary data dir and that database, makes
 * the data (see the header), listens and answers ready. `dist(path)` imports a compiled module;
 * `answerIpc(stop)` serves the parent's commands (stop, cpu, rss).
 */
export function publishingServer({ dist, answerIpc }) {
  process.once('message', (message) => {
    bootPublishing(dist, answerIpc, message).catch((error) => {
      process.stderr.write(`publishing server: ${error?.stack ?? error}\n`)
      process.exit(1)
    })
  })
}

async function bootPublishing(dist, answerIpc, { database, log, resources }) {
  const { Kernel, createLogger, ensureKeyPair, loadConfig } = await dist('src/kernel/index.js')
  const { CATALOG } = await dist('src/catalog.js')
  const { createUser } = await dist('plugins/identity/index.js')
  const { createPlatform } = await dist('plugins/platforms/index.js')

  const dataDir = mkdtempSync(join(tmpdir(), 'mediactl-bench-publish-'))
  const logFile = log === 'file' ? join(dataDir, 'access.log') : undefined
  const level = log === 'file' ? 'info' : 'warn'
  const { config } = loadConfig({
    env: {},
    file: undefined,
    cwd: dataDir,
    overrides: {
      data_dir: dataDir,
      log_level: level,
      http: { host: '127.0.0.1', port: 0 },
      database: { url: database },
      auth: { secret: randomBytes(32).toString('hex') },
    },
  })
  ensureKeyPair(dataDir)
  const kernel = await Kernel.boot({ config, catalog: CATALOG, logger: createLogger(level, logFile) })
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await kernel.close()
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  answerIpc(stop)
  await kernel.migrator.up()
  await kernel.seed()
  const em = kernel.em()
  const platform = await createPlatform(kernel.emit, em, { name: 'Default', maxUsers: 0, maxSpace: 0 })
  const { user, apiKey } = await createUser(em, {
    platform,
    username: 'admin',
    email: 'admin@example.org',
    admin: true,
    realm: config.auth.realm,
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  const cred = { username: 'admin', ha1: md5(`admin:${config.auth.realm}:${apiKey}`) }
  const knex = em.getKnex()

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

  const started = performance.now()
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
  const now = new Date()
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
  if (database) await knex.raw('vacuum analyze')

  process.send({
    url,
    username: 'admin',
    apiKey,
    realm: config.auth.realm,
    dialect: database ? 'postgresql' : 'sqlite',
    media,
    stream,
    resource,
    resources: Number(count),
    insertMs,
    setupMs: Math.round(performance.now() - started),
    logLevel: level,
  })
}

// ---------------------------------------------------------------------------------------
// Parent: the scenarios.
// ---------------------------------------------------------------------------------------

/** Headers the bare server does not replay (per connection or per answer). */
const SKIP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/**
 * Runs the publishing scenarios. From bench/run.js: `startChild(role, execArgv)`, the child
 * flags `execArgv`, its autocannon helpers `loadTest(autocannon, url, requests, duration)`,
 * `digestRequests(cred, nonces, path, headers)`, `summarize(result)`, and its `settings`
 * (warmup, duration, connections, log). Resolves with the rows, goals and validity for the report.
 */
export async function runPublishing({
  startChild,
  execArgv,
  autocannon,
  loadTest,
  digestRequests,
  summarize,
  settings,
  say,
}) {
  const out = {
    database: null,
    resources: null,
    setup: null,
    responses: [],
    rows: [],
    goals: null,
    valid: true,
  }
  const db = await freshDatabase(publishSettings.databaseUrl)
  out.database = db.name
  let server
  let bare
  const cleanUp = async () => {
    await Promise.all([server?.stop(), bare?.stop()])
    await db.drop()
  }
  const onSignal = (signal) => {
    void cleanUp()
      .catch(() => undefined)
      .finally(() => process.kill(process.pid, signal))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    say(`publish: ${publishSettings.resources} resources on ${db.name} ...`)
    server = startChild('publishing', execArgv)
    server.child.send({ database: db.url, log: settings.log, resources: publishSettings.resources })
    const app = await server.ready
    out.resources = app.resources
    out.setup = { setupMs: app.setupMs, insertMs: app.insertMs, logLevel: app.logLevel }
    say(
      `publish: mediactl at ${app.url} on ${db.name}: ${app.resources} resources in stream ${app.stream} ` +
        `(set up in ${(app.setupMs / 1000).toFixed(1)} s, batched insert ${app.insertMs} ms)`,
    )
    const cred = { username: app.username, ha1: md5(`${app.username}:${app.realm}:${app.apiKey}`) }
    const first = app.resources - PAGE
    const range = `entities=${first}-${app.resources - 1}`
    const scenarios = [
      { key: 'info', name: `GET /resource/${app.resource}`, path: `/resource/${app.resource}`, headers: {} },
      {
        key: 'page',
        name: `GET /stream/${app.stream}/resources Range ${first}-${app.resources - 1}`,
        path: `/stream/${app.stream}/resources`,
        headers: { Range: range },
      },
    ]

    // Capture one real answer per scenario; the bare server replays these bytes.
    const routes = {}
    for (const s of scenarios) {
      const c = await challenge(app.url)
      const res = await fetchRaw(app.url, s.path, {
        ...s.headers,
        Authorization: authorization(cred, c, 1, 'GET', s.path),
      })
      if (res.status < 200 || res.status > 299) {
        throw new Error(`${s.name} answered ${res.status}: ${res.body.toString('utf8')}`)
      }
      const xml = res.body.toString('utf8')
      s.status = res.status
      s.bytes = res.body.length
      s.headersCaptured = res.pairs.filter(([name]) => !SKIP.has(name.toLowerCase()))
      s.contentRange = res.headers['content-range'] ?? null
      s.resources = (xml.match(/<resource href=/g) ?? []).length
      s.flavors = (xml.match(/<flavor name=/g) ?? []).length
      s.widgets = (xml.match(/<widget name=/g) ?? []).length
      s.subtitles = (xml.match(/<subtitle language=/g) ?? []).length
      s.thumbnail = /<thumbnail><!\[CDATA\[http/.test(xml)
      routes[s.path] = { status: res.status, headers: s.headersCaptured.flat(), body: res.body.toString('base64') }
    }
    // The answers must be the rich ones described above (a regression in the data would measure less).
    const [info, page] = scenarios
    const expectInfo = info.flavors === 5 && info.widgets === 2 && info.subtitles === 2 && info.thumbnail
    if (!expectInfo) {
      throw new Error(
        `resource info lacks data: ${info.flavors} flavors, ${info.widgets} widgets, ${info.subtitles} subtitles, ` +
          `thumbnail ${info.thumbnail}`,
      )
    }
    const expectedRange = `entities ${first}-${app.resources - 1}/${app.resources}`
    if (page.resources !== PAGE || page.contentRange !== expectedRange) {
      throw new Error(`the deep page has ${page.resources} resources, Content-Range ${page.contentRange}`)
    }

    bare = startChild('bare')
    bare.child.send({ routes })
    const bareInfo = await bare.ready
    for (const s of scenarios) {
      const res = await fetchRaw(bareInfo.url, s.path, s.headers)
      const same =
        res.status === s.status &&
        res.body.equals(Buffer.from(routes[s.path].body, 'base64')) &&
        JSON.stringify(res.pairs.filter(([n]) => !SKIP.has(n.toLowerCase()))) === JSON.stringify(s.headersCaptured)
      if (!same) throw new Error(`the bare server does not replay ${s.name} identically`)
      say(
        `publish: ${s.name}: ${s.status}, ${s.bytes} body bytes` +
          (s.contentRange ? `, Content-Range ${s.contentRange}` : '') +
          ' (bare server replays the same status, headers and bytes)',
      )
      out.responses.push({
        scenario: s.name,
        status: s.status,
        bytes: s.bytes,
        contentRange: s.contentRange,
        resources: s.resources,
        flavors: s.flavors,
        widgets: s.widgets,
        subtitles: s.subtitles,
        headers: s.headersCaptured,
      })
    }

    // The deep page once more from a single connection: the latency of the answer itself, without
    // the queue 50 connections make (informative; the goal is read at the usual 50 connections).
    const single = (url, requests, duration) =>
      autocannon({ url, connections: 1, pipelining: 1, duration, requests, timeout: 10 })
    for (let round = 1; round <= publishSettings.rounds; round++) {
      for (const s of scenarios) {
        const targets = [
          { server: 'bare node:http', url: bareInfo.url, child: bare, connections: settings.connections },
          { server: 'mediactl', url: app.url, child: server, connections: settings.connections },
        ]
        if (s.key === 'page')
          targets.push({ server: 'mediactl, 1 connection', url: app.url, child: server, connections: 1 })
        for (const target of targets) {
          say(`publish: round ${round}, ${s.key === 'info' ? 'resource info' : 'deep page'} on ${target.server} ...`)
          const load = (requests, duration) =>
            target.connections === 1
              ? single(target.url, requests, duration)
              : loadTest(autocannon, target.url, requests, duration)
          const pool = async () => {
            const nonces = []
            for (let i = 0; i < target.connections; i++) nonces.push(await challenge(app.url))
            return nonces
          }
          if (settings.warmup > 0) await load(digestRequests(cred, await pool(), s.path, s.headers), settings.warmup)
          const requests = digestRequests(cred, await pool(), s.path, s.headers)
          const cpuBefore = await target.child.cpu()
          const result = await load(requests, settings.duration)
          const cpuUs = (await target.child.cpu()) - cpuBefore
          out.rows.push({
            scenario: s.key === 'info' ? 'resource info' : 'deep page',
            key: s.key,
            round,
            server: target.server,
            connections: target.connections,
            path: s.path,
            headers: s.headers,
            ...summarize(result),
            cpuUsPerRequest: Math.round(cpuUs / Math.max(1, result.requests.total)),
            ratio: null,
          })
        }
        const ofRound = out.rows.filter((r) => r.round === round && r.key === s.key)
        const bareRow = ofRound.find((r) => r.server === 'bare node:http')
        const appRow = ofRound.find((r) => r.server === 'mediactl')
        appRow.ratio = appRow.rps / bareRow.rps
      }
    }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await cleanUp()
  }

  out.valid = out.rows.every((r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0)
  const app = (key) => out.rows.filter((r) => r.key === key && r.server === 'mediactl')
  const infos = app('info')
  const pages = app('page')
  const singles = out.rows.filter((r) => r.key === 'page' && r.connections === 1)
  const postgres = out.database.startsWith('PostgreSQL')
  out.goals = {
    ratio: {
      target: PUBLISH_GOAL.ratio,
      best: Math.max(...infos.map((r) => r.ratio)),
      worst: Math.min(...infos.map((r) => r.ratio)),
      met: infos.every((r) => r.ratio >= PUBLISH_GOAL.ratio),
      metBest: infos.some((r) => r.ratio >= PUBLISH_GOAL.ratio),
    },
    p99: {
      target: PUBLISH_GOAL.p99,
      // The goal is stated on PostgreSQL; on SQLite the same check is informative.
      applies: postgres,
      best: Math.min(...pages.map((r) => r.p99)),
      worst: Math.max(...pages.map((r) => r.p99)),
      met: pages.every((r) => r.p99 < PUBLISH_GOAL.p99),
      metBest: pages.some((r) => r.p99 < PUBLISH_GOAL.p99),
      connections: settings.connections,
      // From one connection: the answer's own latency (informative).
      single: singles.length
        ? { best: Math.min(...singles.map((r) => r.p99)), worst: Math.max(...singles.map((r) => r.p99)) }
        : null,
    },
  }
  return out
}

/** The publishing table for the console: every round of every scenario. */
export function formatPublishTable(out) {
  const header = [
    'Scenario',
    'Server',
    'round',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'vs bare',
    'CPU µs/req',
  ]
  const lines = out.rows.map((r) => [
    r.scenario,
    r.server,
    String(r.round),
    Math.round(r.rps).toLocaleString('en-US'),
    String(r.p50),
    String(r.p99),
    String(r.non2xx),
    String(r.errors + r.timeouts),
    r.server === 'bare node:http' ? '100%' : r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(1)}%`,
    String(r.cpuUsPerRequest),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const fmt = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [
    `publishing on ${out.database}, ${out.resources} resources in the stream`,
    fmt(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...lines.map(fmt),
  ].join('\n')
}

/** The goal lines for the console. */
export function publishGoalLines(out) {
  const g = out.goals
  const pct = (ratio) => `${(ratio * 100).toFixed(1)}%`
  const verdict = (goal) => (goal.met ? 'met' : goal.metBest ? 'met in the better round only' : 'NOT met')
  return [
    `goal: resource info >= ${PUBLISH_GOAL.ratio * 100}% of the bare server's req/s (${out.database}): ` +
      `${pct(g.ratio.worst)} to ${pct(g.ratio.best)} -> ${verdict(g.ratio)}`,
    `goal: deep page p99 < ${PUBLISH_GOAL.p99} ms on PostgreSQL at ${g.p99.connections} connections ` +
      `(${out.database}${g.p99.applies ? '' : ': informative'}): ${g.p99.best} to ${g.p99.worst} ms -> ` +
      `${verdict(g.p99)}` +
      (g.p99.single ? ` (from 1 connection: p99 ${g.p99.single.best} to ${g.p99.single.worst} ms)` : ''),
  ]
}
