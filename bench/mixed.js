/**
 * Mixed-workload benchmark (issue 31, item 2), part of `npm run bench` (bench/run.js calls
 * `runMixed` after the publishing scenarios; `BENCH_ONLY=mixed` runs it alone). How fast mediactl
 * serves many callers reading many resources while writes happen, against the bare server
 * answering the same mix: docs/benchmarks.md, section Mixed workload. It decided the removal of
 * the whole-answer cache (docs/decisions/0254), and is now the figure to improve.
 *
 * The data: the publishing data of bench/publishing-data.js (a stream of BENCH_MIXED_RESOURCES
 * resources, the 9,999 first with one batched insert), made by the publishing child of
 * bench/publishing.js (`--role=mixed` of bench/run.js), then BENCH_MIXED_USERS callers (users of
 * the Default platform made with the identity plugin's `createUser`, each with an API key of its
 * own, profile Publisher), all members of one group that holds the Editor role on the media, so
 * each may read and edit every resource and upload into their own file store.
 *
 * The load (autocannon, Digest as in bench/run.js, BENCH_CONNECTIONS connections): each request
 * is drawn at random, its caller uniformly among the callers and its resource among all of them
 * (uniformly, or Zipf with BENCH_MIXED_SKEW). A share BENCH_MIXED_WRITES of the requests are
 * writes, split evenly between:
 *   - update: `PUT /resource/<slug>` with a new title (as the caller, who holds resource.edit);
 *   - play: `POST /player/<slug>/views?token=<view token>`, what the player page sends once per
 *     playback session (the API's count of plays; the token is signed here with the server's
 *     secret, as the player page would get it, for a fresh session each time);
 *   - upload: a small file (BENCH_MIXED_UPLOAD_KB) by multipart `POST /files` (it is queued for
 *     encoding; no job runs in this child, so it measures the upload and its rows only).
 * The others read resource info, `GET /resource/<slug>` (the route bench/publishing.js measures).
 *
 * Compared, in one run and on one database kind: one mediactl child on a fresh database of its
 * own, and the bare node:http server answering the same mix with the bytes mediactl answered (one
 * captured answer per kind of request; it reads each request body whole before answering). Each
 * round runs the bare server, then mediactl, each with a warm-up and a measured run, so the ratio
 * of a round compares runs a few seconds apart. Per run: req/s and its ratio to the bare server's,
 * p50/p99 of the reads and of the writes (autocannon's latency of each answer, by kind), the
 * server's CPU µs per request, and (mediactl only) its statements per request.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_MIXED_RESOURCES [10000] resources in the stream, every one of them requested
 *   BENCH_MIXED_USERS [100]       distinct callers, each with its own credentials
 *   BENCH_MIXED_WRITES [0.05]     share of writes (updates, plays and uploads, a third each); 0: reads only
 *   BENCH_MIXED_SKEW [0]          0: resources drawn uniformly; s > 0: Zipf with exponent s (rank k drawn
 *                                 with weight 1/k^s, ranks spread over the stream by a fixed shuffle)
 *   BENCH_MIXED_UPLOAD_KB [4]     size of each uploaded file
 *   BENCH_MIXED_ROUNDS [2]        rounds of bare, then mediactl
 *   BENCH_DATABASE_URL [unset]    as in bench/publishing.js: a fresh PostgreSQL database for the child
 *   BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_LOG: as in bench/run.js
 * About a minute per database with the defaults (the child set up, 2 rounds of 2 × 12 s).
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { authorization, challenge, digestFetch, fetchRaw, md5 } from './digest.js'
import { multipart, slugIn } from './publishing-data.js'
import { askChild, cleanUpOnSignal, freshDatabase, publishSettings } from './publishing.js'

export const mixedSettings = {
  resources: Math.max(50, Number(process.env.BENCH_MIXED_RESOURCES ?? 10_000)),
  users: Math.max(1, Number(process.env.BENCH_MIXED_USERS ?? 100)),
  writes: Math.min(1, Math.max(0, Number(process.env.BENCH_MIXED_WRITES ?? 0.05))),
  skew: Math.max(0, Number(process.env.BENCH_MIXED_SKEW ?? 0)),
  uploadKB: Math.max(1, Number(process.env.BENCH_MIXED_UPLOAD_KB ?? 4)),
  rounds: Math.max(1, Number(process.env.BENCH_MIXED_ROUNDS ?? 2)),
}

/** The kinds of writes, in equal shares of the writes. */
const WRITES = ['update', 'play', 'upload']

/** The two servers' names in the rows. */
const BARE = 'bare node:http'
const MEDIACTL = 'mediactl'

/** Purpose of the player's view tokens (plugins/player/player-view.service.ts). */
const VIEW_TOKEN_PURPOSE = 'player.view'

// ---------------------------------------------------------------------------------------
// Child: the callers, made after the publishing data (the `prepare` of bench/publishing.js).
// ---------------------------------------------------------------------------------------

/**
 * Makes the callers and their access, and answers what the parent needs to drive the load:
 * the callers' `{ username, ha1 }`, every resource of the stream as `[id, slug]`, and the server
 * secret (to sign view tokens, as the player page gets them).
 */
export async function prepareMixed({ dist, kernel, em, knex, config, platform, made }) {
  const identity = await dist('plugins/identity/index.js')
  const realm = config.auth.realm
  const publisher = await em.findOneOrFail(identity.ProfileEntity, { platform, name: 'Publisher' })
  const editor = await em.findOneOrFail(identity.RoleEntity, { platform, name: 'Editor' })
  const group = em.create(identity.GroupEntity, {
    slug: 'mixed-callers',
    name: 'Mixed callers',
    platform,
    createdAt: new Date(),
  })
  const callers = []
  for (let i = 1; i <= mixedSettings.users; i++) {
    const username = `caller-${String(i).padStart(3, '0')}`
    const { user, apiKey } = await identity.createUser(em, {
      platform,
      profile: publisher,
      username,
      email: `${username}@example.org`,
      realm,
    })
    em.create(identity.GroupMemberEntity, { group, user, createdAt: new Date() })
    callers.push({ username, ha1: md5(`${username}:${realm}:${apiKey}`) })
  }
  const { id: mediaId } = await knex('medias').where({ slug: made.media }).first('id')
  em.create(identity.AccessEntity, {
    publicId: randomBytes(6).toString('hex'),
    user: null,
    group,
    objectKind: 'media',
    objectId: mediaId,
    role: editor,
    platform,
    createdAt: new Date(),
  })
  await em.flush()
  const { id: streamId } = await knex('streams').where({ slug: made.stream }).first('id')
  const rows = await knex('resources').where({ stream_id: streamId }).orderBy('id').select('id', 'slug')
  return {
    callers,
    targets: rows.map((r) => [Number(r.id), r.slug]),
    secret: kernel.services.secret,
  }
}

// ---------------------------------------------------------------------------------------
// Child: the bare node:http server answering the mix.
// ---------------------------------------------------------------------------------------

/** Which captured answer a request of the mix gets, by method and path. */
function kindOf(method, url) {
  if (method === 'GET' && url.startsWith('/resource/')) return 'read'
  if (method === 'PUT' && url.startsWith('/resource/')) return 'update'
  if (method === 'POST' && url.startsWith('/player/')) return 'play'
  if (method === 'POST' && (url === '/files' || url.startsWith('/files?'))) return 'upload'
  return null
}

/**
 * The bare server of the mix (`--role=mixed-bare` of bench/run.js): waits for `{ answers }` (per
 * kind: status, header pairs, body in base64), then answers each request with the answer of its
 * kind once its body is read whole, with `serverOptions` (mediactl's node:http options).
 */
export function mixedBareServer({ answerIpc, serverOptions }) {
  process.once('message', ({ answers }) => {
    const kept = new Map(
      Object.entries(answers).map(([kind, a]) => [
        kind,
        { status: a.status, headers: a.headers, body: Buffer.from(a.body, 'base64') },
      ]),
    )
    const server = createServer(serverOptions, (req, res) => {
      const answer = kept.get(kindOf(req.method, req.url ?? '/'))
      req.on('data', () => undefined)
      req.on('end', () => {
        if (!answer) {
          res.statusCode = 404
          res.end()
          return
        }
        res.writeHead(answer.status, answer.headers)
        res.end(answer.body)
      })
    })
    server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
    answerIpc(() => {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    })
  })
}

// ---------------------------------------------------------------------------------------
// Parent: the load.
// ---------------------------------------------------------------------------------------

/** A deterministic shuffle of 0..n-1 (the same in every run). */
function permutation(n) {
  const order = Array.from({ length: n }, (_, i) => i)
  let seed = 0x2545f491
  for (let i = n - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    const j = seed % (i + 1)
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
}

/** Draws an index of 0..n-1: uniformly, or Zipf with exponent `skew`. */
function picker(n, skew) {
  if (!skew) return () => Math.floor(Math.random() * n)
  const cdf = new Float64Array(n)
  let sum = 0
  for (let k = 0; k < n; k++) {
    sum += 1 / Math.pow(k + 1, skew)
    cdf[k] = sum
  }
  const order = permutation(n)
  return () => {
    const u = Math.random() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid] < u) lo = mid + 1
      else hi = mid
    }
    return order[lo]
  }
}

/**
 * The autocannon requests of the mix: one entry whose `setupRequest` draws each request (kind,
 * caller, resource). `state` is per connection (autocannon clones the options per connection):
 * its nonce from `nonces`, nc counted up by the requests that carry Digest credentials. The kind
 * of the request under way is `state.kind` (pipelining 1), for the latencies by kind.
 */
function mixedRequests({ callers, targets, nonces, signView, uploadBody, failures }) {
  let next = 0
  let edits = 0
  let uploads = 0
  const pick = picker(targets.length, mixedSettings.skew)
  const writes = mixedSettings.writes
  return [
    {
      method: 'GET',
      path: '/',
      headers: {},
      state: {},
      setupRequest(req) {
        const s = req.state
        if (!s.challenge) {
          if (next >= nonces.length) throw new Error('more connections than nonces')
          s.challenge = nonces[next++]
          s.nc = 0
        }
        const [id, slug] = targets[pick()]
        const caller = callers[Math.floor(Math.random() * callers.length)]
        const draw = Math.random()
        const kind =
          draw < writes ? WRITES[Math.min(WRITES.length - 1, Math.floor((draw / writes) * WRITES.length))] : 'read'
        const signed = (method, path) => {
          s.nc += 1
          return authorization(caller, s.challenge, s.nc, method, path)
        }
        s.kind = kind
        req.body = undefined
        if (kind === 'read') {
          req.method = 'GET'
          req.path = `/resource/${slug}`
          req.headers = { Authorization: signed('GET', req.path) }
        } else if (kind === 'update') {
          req.method = 'PUT'
          req.path = `/resource/${slug}`
          req.body = new URLSearchParams({ title: `Lecture ${slug.slice(-5)}, edit ${++edits}` }).toString()
          req.headers = {
            'Content-Type': 'application/x-www-form-urlencoded',
            Authorization: signed('PUT', req.path),
          }
        } else if (kind === 'play') {
          req.method = 'POST'
          req.path = `/player/${slug}/views?token=${encodeURIComponent(signView(id, slug))}`
          req.headers = {}
        } else {
          const { body, type } = uploadBody(`clip-${++uploads}.bin`)
          req.method = 'POST'
          req.path = '/files'
          req.body = body
          req.headers = { 'Content-Type': type, Authorization: signed('POST', req.path) }
        }
        return req
      },
      onResponse(status, body) {
        if ((status < 200 || status > 299) && failures.length < 5) {
          failures.push(`${this.state?.kind ?? '?'} answered ${status}: ${String(body).slice(0, 300)}`)
        }
      },
    },
  ]
}

/** The `q` quantile (0..1) of sorted numbers, or null when there are none. */
function quantile(sorted, q) {
  if (!sorted.length) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

/** ms with one decimal. */
const ms1 = (value) => (value === null ? null : Math.round(value * 10) / 10)

/** One load of the mix on `url` for `duration` s; the autocannon result and the latencies by kind. */
async function loadMix(autocannon, url, options, connections, duration) {
  const latencies = { read: [], update: [], play: [], upload: [] }
  const bad = { read: 0, update: 0, play: 0, upload: 0 }
  const tracker = autocannon({
    url,
    connections,
    pipelining: 1,
    duration,
    timeout: 10,
    requests: mixedRequests(options),
  })
  tracker.on('response', (client, status, _bytes, responseTime) => {
    const kind = client.requestIterator.currentRequest.state.kind
    latencies[kind].push(responseTime)
    if (status < 200 || status > 299) bad[kind] += 1
  })
  const result = await tracker
  for (const list of Object.values(latencies)) list.sort((a, b) => a - b)
  return { result, latencies, bad }
}

/**
 * One request of each kind to a mediactl child (as its first caller), checked: its answer, for the
 * bare server to replay. Then that a play is counted: `views` of the resource one flush later.
 */
async function smokeTest(app, signView) {
  const caller = app.callers[0]
  const [id, slug] = app.targets[0]
  const answers = {}
  const keep = (kind, res, status) => {
    if (res.status !== status) throw new Error(`mixed: ${kind} answered ${res.status}, not ${status}: ${res.body}`)
    const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])
    answers[kind] = {
      status: res.status,
      headers: res.pairs.filter(([n]) => !skip.has(n.toLowerCase())).flat(),
      body: res.body.toString('base64'),
    }
    return res.body.toString('utf8')
  }
  const views = (xml) => Number(/<views>(\d+)<\/views>/.exec(xml)?.[1] ?? NaN)
  const before = views(keep('read', await digestFetch(app.url, caller, 'GET', `/resource/${slug}`), 200))
  keep(
    'update',
    await digestFetch(
      app.url,
      caller,
      'PUT',
      `/resource/${slug}`,
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      'title=Lecture%2000001%2C%20edited',
    ),
    200,
  )
  const token = encodeURIComponent(signView(id, slug))
  keep('play', await fetchRaw(app.url, `/player/${slug}/views?token=${token}`, {}, { method: 'POST' }), 204)
  const upload = multipart([{ name: 'path', filename: 'clip-0.bin', data: randomBytes(mixedSettings.uploadKB * 1024) }])
  const uploaded = keep(
    'upload',
    await digestFetch(app.url, caller, 'POST', '/files', { 'Content-Type': upload.type }, upload.body),
    200,
  )
  if (!slugIn(uploaded)) throw new Error(`mixed: the upload answered no file: ${uploaded}`)
  // Plays are written once per resources.views_flush_ms (1 s by default).
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const after = views((await digestFetch(app.url, caller, 'GET', `/resource/${slug}`)).body.toString('utf8'))
  if (after !== before + 1) throw new Error(`mixed: a play was not counted: views ${before}, then ${after}`)
  return answers
}

/**
 * Runs the mixed workload. From bench/run.js: `startChild(role, execArgv, args)`, the child flags
 * `execArgv`, autocannon, its `settings` (warmup, duration, connections, log), `dist(path)` (a
 * compiled module) and `say`. Resolves with the rows and validity for the report.
 */
export async function runMixed({ startChild, execArgv, autocannon, settings, dist, say }) {
  const { signToken } = await dist('src/kernel/index.js')
  const out = { database: null, settings: { ...mixedSettings }, setup: null, rows: [], failures: [], valid: true }
  let db
  let server
  let bare
  const cleanUp = async () => {
    await Promise.all([server?.stop(), bare?.stop()])
    await db?.drop()
  }
  const offSignal = cleanUpOnSignal(cleanUp)
  try {
    db = await freshDatabase(publishSettings.databaseUrl)
    out.database = db.name
    say(`mixed: ${mixedSettings.resources} resources, ${mixedSettings.users} callers on ${db.name} ...`)
    server = startChild('mixed', execArgv)
    // The metrics listener, as `serve` runs it with metrics.port set (and as in the runs of decision 0254).
    server.child.send({ database: db.url, log: settings.log, resources: mixedSettings.resources, metrics: true })
    const app = await server.ready
    const signView = (id, slug) =>
      signToken(
        app.secret,
        VIEW_TOKEN_PURPOSE,
        { r: id, s: slug, v: randomBytes(16).toString('base64url') },
        new Date(Date.now() + 3_600_000),
      )
    out.setup = { resources: app.targets.length, callers: app.callers.length, setupMs: app.setupMs }
    say(
      `mixed: mediactl at ${app.url}: ${app.targets.length} resources, ${app.callers.length} callers ` +
        `(set up in ${(app.setupMs / 1000).toFixed(1)} s)`,
    )
    const answers = await smokeTest(app, signView)

    bare = startChild('mixed-bare')
    bare.child.send({ answers })
    const bareInfo = await bare.ready
    const uploadData = randomBytes(mixedSettings.uploadKB * 1024)
    const uploadBody = (filename) => multipart([{ name: 'path', filename, data: uploadData }])
    const pool = async () => {
      const nonces = []
      for (let i = 0; i < settings.connections; i++) nonces.push(await challenge(app.url))
      return nonces
    }
    const options = async (failures) => ({
      callers: app.callers,
      targets: app.targets,
      nonces: await pool(),
      signView,
      uploadBody,
      failures,
    })

    for (let round = 1; round <= mixedSettings.rounds; round++) {
      const targets = [
        { server: BARE, url: bareInfo.url, child: bare, measured: false },
        { server: MEDIACTL, url: app.url, child: server, measured: true },
      ]
      const roundRows = []
      for (const target of targets) {
        say(`mixed: round ${round}, ${target.server} ...`)
        if (settings.warmup > 0) {
          await loadMix(autocannon, target.url, await options([]), settings.connections, settings.warmup)
        }
        const failures = []
        const ready = await options(failures)
        const queriesBefore = target.measured ? await askChild(server.child, 'queries', 'queries') : null
        const cpuBefore = await target.child.cpu()
        const { result, latencies, bad } = await loadMix(
          autocannon,
          target.url,
          ready,
          settings.connections,
          settings.duration,
        )
        const cpuUs = (await target.child.cpu()) - cpuBefore
        const queries = target.measured ? (await askChild(server.child, 'queries', 'queries')) - queriesBefore : null
        const total = result.requests.total
        const writes = [...latencies.update, ...latencies.play, ...latencies.upload].sort((a, b) => a - b)
        for (const failure of failures) out.failures.push(`${target.server}, round ${round}: ${failure}`)
        roundRows.push({
          round,
          server: target.server,
          rps: result.requests.average,
          requests: total,
          counts: Object.fromEntries(Object.entries(latencies).map(([k, list]) => [k, list.length])),
          readP50: ms1(quantile(latencies.read, 0.5)),
          readP99: ms1(quantile(latencies.read, 0.99)),
          writeP50: ms1(quantile(writes, 0.5)),
          writeP99: ms1(quantile(writes, 0.99)),
          byKind: Object.fromEntries(
            Object.entries(latencies).map(([k, list]) => [
              k,
              { p50: ms1(quantile(list, 0.5)), p99: ms1(quantile(list, 0.99)), non2xx: bad[k] },
            ]),
          ),
          p99: result.latency.p99,
          cpuUsPerRequest: Math.round(cpuUs / Math.max(1, total)),
          queriesPerRequest: queries === null ? null : Math.round((queries / Math.max(1, total)) * 10) / 10,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          ratio: null,
        })
      }
      const bareRow = roundRows.find((r) => r.server === BARE)
      for (const row of roundRows) row.ratio = row.rps / bareRow.rps
      out.rows.push(...roundRows)
    }
  } finally {
    offSignal()
    await cleanUp()
  }
  out.valid = out.rows.every((r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0)
  return out
}

/** The mixed workload's table for the console: every round of both servers. */
export function formatMixedTable(out) {
  const s = out.settings
  const header = [
    'Server',
    'round',
    'req/s',
    'vs bare',
    'reads p50/p99 ms',
    'writes p50/p99 ms',
    'CPU µs/req',
    'queries/req',
    'non-2xx',
    'errors',
  ]
  const pair = (a, b) => `${a ?? '-'} / ${b ?? '-'}`
  const lines = out.rows.map((r) => [
    r.server,
    String(r.round),
    Math.round(r.rps).toLocaleString('en-US'),
    r.server === BARE ? '100%' : `${(r.ratio * 100).toFixed(1)}%`,
    pair(r.readP50, r.readP99),
    pair(r.writeP50, r.writeP99),
    String(r.cpuUsPerRequest),
    r.queriesPerRequest === null ? '-' : String(r.queriesPerRequest),
    String(r.non2xx),
    String(r.errors + r.timeouts),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const fmt = (cells) => cells.map((c, i) => (i < 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [
    `mixed workload on ${out.database}: ${s.resources} resources, ${s.users} callers, ` +
      `${Math.round(s.writes * 1000) / 10}% writes (updates, plays, uploads of ${s.uploadKB} KB), ` +
      (s.skew ? `Zipf ${s.skew}` : 'uniform'),
    fmt(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...lines.map(fmt),
    ...out.failures.map((f) => `failure: ${f}`),
  ].join('\n')
}
