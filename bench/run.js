#!/usr/bin/env node
/**
 * mediactl HTTP benchmark: `npm run bench` (builds, then runs this file).
 *
 * What it measures, with autocannon over loopback:
 *   1. authenticated `GET /platform/<slug>` (platform info) against mediactl;
 *   2. authenticated `GET /platforms` with `Range: entities=0-49` over 10,000 platforms;
 *   3. the same two requests against a bare `node:http` server that answers the exact bytes
 *      and headers mediactl answered (captured first), as the ceiling for this machine;
 *   4. user reads as an installation administrator and as a reader (authorization cost);
 *   5. 1 GiB uploads (multipart `POST /files` and tus) against a streamed copy of the same
 *      file on the same disk, with the server's peak RSS: see bench/uploads.js;
 *   6. the encoding of a 60 s 1080p video through the pipeline (upload answered to `finished`)
 *      against the encoder port's own work on the same file: see bench/encoding.js;
 *   7. publishing reads: `GET /resource/<slug>` and the deep page `GET /stream/<slug>/resources`
 *      with `Range: entities=9950-9999` over 10,000 resources, against the bare server, on
 *      SQLite or PostgreSQL (BENCH_DATABASE_URL): see bench/publishing.js.
 *   8. the player page: bytes before the media and time to the first frame in Chromium (bench/player.js).
 *   9. a mixed workload: 100 callers reading resource info over all 10,000 resources with 5% writes
 *      (updates, plays, uploads) mixed in, against the bare server answering the same mix: see
 *      bench/mixed.js.
 *  10. the console's library of 10,000 files: bytes before the first render and the first render in Chromium,
 *      against the page's own API request timed alone (bench/console.js).
 * For each it prints req/s, p50 and p99 latency, the non-2xx / error counts (must be 0), the
 * ratio to the bare server and the server's CPU time per request (process.cpuUsage of the
 * server child over the measured run), then writes everything to bench/results/latest.json.
 * docs/benchmarks.md explains the figures.
 *
 * How:
 *   - The mediactl server runs in a child process (this file with `--role=mediactl`), so the
 *     load generator does not share its event loop: it boots the compiled kernel from dist/
 *     on a temporary data dir with SQLite, applies migrations and seeds, creates the
 *     "Default" platform and an installation administrator, then inserts the remaining
 *     platforms with one batched knex insert in a transaction.
 *   - The bare server is another child (`--role=bare`) with the same node:http options.
 *   - HTTP Digest: every request carries a fresh nc, cnonce and response hash, computed in
 *     autocannon's `setupRequest`. Each connection gets its own nonce (fetched from the
 *     server's 401 challenge before the run) and counts nc up from 1, so nc grows
 *     monotonically per nonce and the server's replay check never fires. Requests to the bare
 *     server carry the same computed header, so the load generator does the same work in
 *     both cases and the ratio compares servers only.
 *   - Each scenario gets a short warm-up (not recorded) and then a measured run; every run
 *     uses fresh nonces, and runs stay far below the 300 s nonce lifetime.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_DURATION [10]    seconds measured per scenario
 *   BENCH_WARMUP [2]       seconds of warm-up per scenario
 *   BENCH_CONNECTIONS [50] concurrent keep-alive connections (pipelining 1)
 *   BENCH_PLATFORMS [10000] platforms in the database (the Default one included)
 *   BENCH_LOG [file]       `file`: log_level info, access log written to a file in the temp
 *                          data dir (what production pays); `warn`: log_level warn, no
 *                          access log lines at all
 *   BENCH_CPU_PROF [unset] a directory: run the mediactl child under `node --cpu-prof`
 *                          and write its .cpuprofile there
 *   BENCH_SERVER_ARGS [unset] more node flags for the mediactl child (`--trace-gc`, ...), after
 *                          `--initial-old-space-size=128`, which it always gets (as bin/run.js does)
 *   BENCH_ONLY [unset]     `info`, `list`, `authz`, `upload`, `encode`, `publish`, `player`, `mixed` or `console`:
 *                          run that scenario only (for profiling)
 *   BENCH_UPLOAD_MB, BENCH_UPLOAD_ROUNDS, BENCH_TUS_CHUNK_MB, BENCH_UPLOAD_KINDS: see
 *                          bench/uploads.js
 *   BENCH_ENCODE_SECONDS, BENCH_ENCODE_ROUNDS: see bench/encoding.js
 *   BENCH_STATE [unset]    `memory` or `database`: where the nonce counts are kept (unset: the
 *                          default, database), to measure what the shared state costs
 *   BENCH_DATABASE_URL, BENCH_RESOURCES, BENCH_PUBLISH_ROUNDS: see bench/publishing.js (the
 *                          database URL applies to the publishing and mixed scenarios only)
 *   BENCH_MIXED_RESOURCES, BENCH_MIXED_USERS, BENCH_MIXED_WRITES, BENCH_MIXED_SKEW,
 *   BENCH_MIXED_UPLOAD_KB, BENCH_MIXED_ROUNDS: see bench/mixed.js
 *
 * Exit code: 0 when every scenario ran with no non-2xx answer and no socket error, and every
 * upload stored the whole file (whether or not the performance goals are met), 1 otherwise.
 */
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { authorization, challenge, fetchRaw, md5 } from './digest.js'
import { ENCODE_GOAL, formatEncodingTable, runEncoding } from './encoding.js'
import { formatMixedTable, mixedBareServer, prepareMixed, runMixed } from './mixed.js'
import { formatPlayerTable, runPlayer, startPlayerServer } from './player.js'
import { formatConsoleTable, runConsole, startConsoleServer } from './console.js'
import { formatPublishTable, publishGoalLines, publishingServer, runPublishing } from './publishing.js'
import { formatUploadTable, runUploads, sampleRss } from './uploads.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const DIST = join(ROOT, 'dist')
const RESULTS = join(HERE, 'results', 'latest.json')

const settings = {
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  platforms: Number(process.env.BENCH_PLATFORMS ?? 10_000),
  log: process.env.BENCH_LOG === 'warn' ? 'warn' : 'file',
  cpuProf: process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined,
  // The heap flag production runs with (bin/run.js, npm start, the service unit), then any extra.
  serverArgs: ['--initial-old-space-size=128', ...(process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean)],
  only: ['info', 'list', 'authz', 'upload', 'encode', 'publish', 'player', 'mixed', 'console'].includes(
    process.env.BENCH_ONLY ?? '',
  )
    ? process.env.BENCH_ONLY
    : undefined,
  users: Number(process.env.BENCH_USERS ?? 1000),
}

/** Goals from the issue: platform info at >= 40% of the bare server's req/s, p99 < 20 ms. */
const GOAL = { ratio: 0.4, p99: 20 }

/**
 * Goal of the identity issue: authorization must not make user reads more than 25% slower
 * than the same requests by an installation administrator: the server's CPU time per request
 * as the reader at most 1.25 times the administrator's (admin / reader >= 80%). CPU per
 * request rather than req/s, because the load generator shares this machine's two cores.
 */
const AUTHZ_GOAL = 1 / 1.25

/** The same createServer options as src/kernel/http/app.ts (createHttpServer) gives the http defaults. */
const SERVER_OPTIONS = {
  maxHeaderSize: 16384,
  keepAliveTimeout: 5000,
  requestTimeout: 0,
  headersTimeout: 20_000,
  connectionsCheckingInterval: 5000,
}

const dist = (path) => {
  const file = join(DIST, path)
  if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm run bench does)`)
  return import(pathToFileURL(file).href)
}

/** Bytes as MB (10^6), one decimal. */
const mb = (bytes) => Math.round(bytes / 1e5) / 10

/**
 * A child's IPC commands: `stop`; `cpu` (answers the process CPU time used so far);
 * `rss-start` and `rss-stop` (samples the resident set size every 50 ms in between and
 * answers the largest sample, see bench/uploads.js).
 */
function answerIpc(stop) {
  let rss
  process.on('message', (message) => {
    if (message === 'stop') void stop()
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() })
    if (message === 'rss-start') {
      rss?.stop()
      rss = sampleRss()
      process.send({ rssStarted: true })
    }
    if (message === 'rss-stop') process.send({ rss: rss?.stop() ?? null })
  })
  process.on('disconnect', () => void stop())
}

// ---------------------------------------------------------------------------------------
// Child: the mediactl server.
// ---------------------------------------------------------------------------------------

async function mediactlServer() {
  const { Kernel, createLogger, ensureKeyPair, loadConfig } = await dist('src/kernel/index.js')
  const { CATALOG } = await dist('src/catalog.js')
  const { createUser } = await dist('plugins/identity/index.js')
  const { createPlatform } = await dist('plugins/platforms/index.js')

  const dataDir = mkdtempSync(join(tmpdir(), 'mediactl-bench-'))
  const logFile = settings.log === 'file' ? join(dataDir, 'access.log') : undefined
  const level = settings.log === 'file' ? 'info' : 'warn'
  const { config } = loadConfig({
    env: {},
    file: undefined,
    cwd: dataDir,
    overrides: {
      data_dir: dataDir,
      log_level: level,
      http: { host: '127.0.0.1', port: 0 },
      database: { url: '' },
      auth: { secret: randomBytes(32).toString('hex') },
      ...(process.env.BENCH_STATE ? { state: process.env.BENCH_STATE } : {}),
    },
  })
  ensureKeyPair(dataDir)
  const kernel = await Kernel.boot({ config, catalog: CATALOG, logger: createLogger(level, logFile) })
  await kernel.migrator.up()
  await kernel.seed()
  const em = kernel.em()
  const platform = await createPlatform(kernel.emit, em, { name: 'Default', maxUsers: 0, maxSpace: 0 })
  const { apiKey } = await createUser(em, {
    platform,
    username: 'admin',
    email: 'admin@example.org',
    admin: true,
    realm: config.auth.realm,
  })

  // The other platforms: one batched insert in one transaction (no API calls, no profiles).
  const started = Date.now()
  const rows = []
  for (let i = 2; i <= settings.platforms; i++) {
    const n = String(i).padStart(5, '0')
    rows.push({
      slug: `platform-${n}`,
      name: `Platform ${n}`,
      max_users: 0,
      max_space: 0,
      created_at: started,
    })
  }
  const knex = em.getKnex()
  await knex.transaction((trx) => knex.batchInsert('platforms', rows, 500).transacting(trx))
  const [{ count }] = await knex('platforms').count({ count: '*' })
  const insertMs = Date.now() - started

  // A second platform with its users (one batched insert) and a reader who sees them through
  // a group access: profile with user.view only (no platform flag), member of a group holding
  // the Viewer role on the platform. A platform of its own keeps the Default platform's info
  // answer (its created_users count) as in the scenarios above.
  const identity = await dist('plugins/identity/index.js')
  const campus = await createPlatform(kernel.emit, em, { name: 'Campus', maxUsers: 0, maxSpace: 0 })
  const publisher = await em.findOneOrFail(identity.ProfileEntity, { platform: campus, name: 'Publisher' })
  const userRows = []
  for (let i = 1; i < settings.users; i++) {
    const n = String(i).padStart(5, '0')
    userRows.push({
      username: `user-${n}`,
      email: `user-${n}@example.org`,
      is_active: true,
      ha1: '0'.repeat(32),
      platform_id: campus.id,
      profile_id: publisher.id,
      created_at: started,
    })
  }
  await knex.transaction((trx) => knex.batchInsert('users', userRows, 500).transacting(trx))
  const directory = em.create(identity.ProfileEntity, {
    slug: 'campus-directory',
    name: 'Directory',
    quota: 0,
    permissions: ['user.view'],
    platform: campus,
    createdAt: new Date(),
  })
  await em.flush()
  const reader = await createUser(em, {
    platform: campus,
    profile: directory,
    username: 'reader',
    email: 'reader@example.org',
    realm: config.auth.realm,
  })
  const group = em.create(identity.GroupEntity, {
    slug: 'readers',
    name: 'Readers',
    platform: campus,
    createdAt: new Date(),
  })
  em.create(identity.GroupMemberEntity, { group, user: reader.user, createdAt: new Date() })
  em.create(identity.AccessEntity, {
    publicId: randomBytes(6).toString('hex'),
    user: null,
    group,
    objectKind: 'platform',
    objectId: campus.id,
    role: await em.findOneOrFail(identity.RoleEntity, { platform: campus, name: 'Viewer' }),
    platform: campus,
    createdAt: new Date(),
  })
  await em.flush()
  const [{ users }] = await knex('users').where({ platform_id: campus.id }).count({ users: '*' })

  const { url } = await kernel.listen(0, '127.0.0.1')
  // Run the queued jobs (encodings) as `mediactl serve` does, on the encoding scenario's server
  // only: the upload scenarios' random files would be probed meanwhile otherwise.
  const { ports } = kernel.services
  const consumes = ports.has('queue') && ports.get('queue').consumesInServe
  const jobs = process.argv.includes('--jobs') && consumes ? await kernel.startJobs() : false
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await kernel.close()
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  answerIpc(stop)
  process.send({
    url,
    username: 'admin',
    apiKey,
    readerKey: reader.apiKey,
    users: Number(users),
    campus: campus.slug,
    realm: config.auth.realm,
    slug: platform.slug,
    platforms: Number(count),
    insertMs,
    logLevel: level,
    jobs: Boolean(jobs),
    logFile: logFile ?? null,
    storageRoot: join(dataDir, 'storage'),
  })
}

// ---------------------------------------------------------------------------------------
// Child: the bare node:http server, answering captured responses by request target.
// ---------------------------------------------------------------------------------------

function bareServer() {
  process.once('message', ({ routes }) => {
    const answers = new Map(
      Object.entries(routes).map(([target, r]) => [
        target,
        { status: r.status, headers: r.headers, body: Buffer.from(r.body, 'base64') },
      ]),
    )
    const server = createServer(SERVER_OPTIONS, (req, res) => {
      const answer = answers.get(req.url)
      if (!answer) {
        res.statusCode = 404
        res.end()
        return
      }
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    })
    server.listen(0, '127.0.0.1', () => {
      process.send({ url: `http://127.0.0.1:${server.address().port}` })
    })
    answerIpc(() => {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    })
  })
}

// ---------------------------------------------------------------------------------------
// Parent: orchestration, capture, load, report.
// ---------------------------------------------------------------------------------------

/** Sends a command to a child and resolves with its first answer carrying `key`. */
function ask(child, command, key) {
  return new Promise((resolvePromise) => {
    const onMessage = (message) => {
      if (typeof message !== 'object' || message === null || !(key in message)) return
      child.off('message', onMessage)
      resolvePromise(message)
    }
    child.on('message', onMessage)
    child.send(command)
  })
}

/** Forks this file in a role and waits for its first IPC message (its address). */
function startChild(role, execArgv = [], args = []) {
  const child = fork(fileURLToPath(import.meta.url), [`--role=${role}`, ...args], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ready = new Promise((resolvePromise, reject) => {
    child.once('message', resolvePromise)
    child.once('exit', (code) => reject(new Error(`the ${role} server exited early (code ${code})`)))
  })
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise))
  return {
    child,
    ready,
    /** CPU time (user + system, in µs) the child has used so far. */
    async cpu() {
      const { cpu } = await ask(child, 'cpu', 'cpu')
      return cpu.user + cpu.system
    },
    /** The child's `process.cpuUsage()` so far: `{ user, system }` in µs. */
    cpuUsage: async () => (await ask(child, 'cpu', 'cpu')).cpu,
    /** Starts sampling the child's RSS every 50 ms. */
    rssStart: () => ask(child, 'rss-start', 'rssStarted'),
    /** Stops sampling: `{ max, first, samples, atMax }` (bytes; `atMax`: process.memoryUsage() then). */
    rssStop: async () => (await ask(child, 'rss-stop', 'rss')).rss,
    async stop() {
      if (child.exitCode === null && child.connected) child.send('stop')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/**
 * autocannon requests for one authenticated target. autocannon deep-clones its options per
 * connection, so `state` is per connection: the first request of a connection takes the
 * next nonce of the pool, and nc counts up from 1 in send order (pipelining 1).
 */
function digestRequests(cred, nonces, path, headers) {
  let next = 0
  const ha2 = md5(`GET:${path}`)
  return [
    {
      method: 'GET',
      path,
      headers,
      state: {},
      setupRequest(req) {
        const s = req.state
        if (!s.challenge) {
          if (next >= nonces.length) throw new Error('more connections than nonces')
          s.challenge = nonces[next++]
          s.nc = 0
        }
        s.nc += 1
        req.headers = { ...req.headers, Authorization: authorization(cred, s.challenge, s.nc, 'GET', path, ha2) }
        return req
      },
    },
  ]
}

async function loadTest(autocannon, url, requests, duration) {
  const result = await autocannon({
    url,
    connections: settings.connections,
    pipelining: 1,
    duration,
    requests,
    timeout: 10,
  })
  return result
}

function summarize(result) {
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    latencyMean: result.latency.mean,
    throughputMBps: Math.round((result.throughput.average / 1e6) * 100) / 100,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration,
  }
}

function formatTable(rows, versus = 'vs bare') {
  const header = ['Scenario', 'Server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', versus, 'CPU µs/req']
  const lines = rows.map((r) => [
    r.scenario,
    r.server,
    Math.round(r.rps).toLocaleString('en-US'),
    String(r.p50),
    String(r.p99),
    String(r.non2xx),
    String(r.errors + r.timeouts),
    r.ratio === null ? '100%' : `${(r.ratio * 100).toFixed(1)}%`,
    String(r.cpuUsPerRequest),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const fmt = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n')
}

async function main() {
  const { default: autocannon } = await import('autocannon')
  const loadBefore = loadavg()
  const say = (message) => process.stdout.write(`${message}\n`)
  say(
    `mediactl bench: ${settings.connections} connections, ${settings.warmup} s warm-up + ` +
      `${settings.duration} s per scenario, ${settings.platforms} platforms, SQLite, log ${settings.log}`,
  )

  const execArgv = [
    ...(settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProf}`] : []),
    ...settings.serverArgs,
  ]
  const mediactl = startChild('mediactl', execArgv)
  let bare
  let uploadServer
  let encodeServer
  try {
    const app = await mediactl.ready
    say(`mediactl at ${app.url}: ${app.platforms} platforms (bulk insert ${app.insertMs} ms)`)
    const cred = { username: app.username, ha1: md5(`${app.username}:${app.realm}:${app.apiKey}`) }

    const scenarios = [
      { key: 'info', name: `GET /platform/${app.slug}`, path: `/platform/${app.slug}`, headers: {} },
      { key: 'list', name: 'GET /platforms Range 0-49', path: '/platforms', headers: { Range: 'entities=0-49' } },
    ]

    const wanted = (key) => !settings.only || settings.only === key
    const reads = scenarios.filter((s) => wanted(s.key))
    const rows = []
    if (reads.length) {
      // Capture one real answer per scenario: the bare server replays these bytes.
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
        const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])
        s.status = res.status
        s.bytes = res.body.length
        s.headersCaptured = res.pairs.filter(([name]) => !skip.has(name.toLowerCase()))
        routes[s.path] = { status: res.status, headers: s.headersCaptured.flat(), body: res.body.toString('base64') }
      }

      bare = startChild('bare')
      bare.child.send({ routes })
      const bareInfo = await bare.ready

      // The bare server must answer byte-for-byte what mediactl answered (Date aside).
      for (const s of scenarios) {
        const res = await fetchRaw(bareInfo.url, s.path, s.headers)
        const same =
          res.status === s.status &&
          res.body.equals(Buffer.from(routes[s.path].body, 'base64')) &&
          JSON.stringify(res.pairs.filter(([n]) => !['date', 'connection', 'keep-alive'].includes(n.toLowerCase()))) ===
            JSON.stringify(s.headersCaptured)
        if (!same) throw new Error(`the bare server does not replay ${s.name} identically`)
        say(`${s.name}: ${s.status}, ${s.bytes} body bytes (bare server replays the same status, headers and bytes)`)
      }

      for (const s of reads) {
        for (const target of [
          { server: 'bare node:http', url: bareInfo.url, child: bare },
          { server: 'mediactl', url: app.url, child: mediactl },
        ]) {
          const nonces = async () => {
            const pool = []
            for (let i = 0; i < settings.connections; i++) pool.push(await challenge(app.url))
            return pool
          }
          say(`running ${s.name} on ${target.server} ...`)
          if (settings.warmup > 0) {
            await loadTest(
              autocannon,
              target.url,
              digestRequests(cred, await nonces(), s.path, s.headers),
              settings.warmup,
            )
          }
          const requests = digestRequests(cred, await nonces(), s.path, s.headers)
          const cpuBefore = await target.child.cpu()
          const result = await loadTest(autocannon, target.url, requests, settings.duration)
          const cpuUs = (await target.child.cpu()) - cpuBefore
          rows.push({
            scenario: s.name,
            server: target.server,
            path: s.path,
            ...summarize(result),
            // Server CPU time per answered request: robust to other load on the machine.
            cpuUsPerRequest: Math.round(cpuUs / Math.max(1, result.requests.total)),
            ratio: null,
          })
        }
      }
    }

    // Authorization cost: the same user reads as an installation administrator and as the reader.
    const readerCred = { username: 'reader', ha1: md5(`reader:${app.realm}:${app.readerKey}`) }
    const authzScenarios = [
      { name: 'GET /user/user-00500', path: '/user/user-00500', headers: {} },
      {
        name: `GET /platform/${app.campus}/users Range 0-49`,
        path: `/platform/${app.campus}/users`,
        headers: { Range: 'entities=0-49' },
      },
    ]
    const authzRows = []
    if (wanted('authz')) {
      say(`${app.users} users on ${app.campus}; the reader sees them through a group access`)
      for (const s of authzScenarios) {
        for (const who of [
          { server: 'mediactl as admin', cred },
          { server: 'mediactl as reader', cred: readerCred },
        ]) {
          const nonces = []
          for (let i = 0; i < settings.connections; i++) nonces.push(await challenge(app.url))
          say(`running ${s.name} ${who.server.replace('mediactl ', '')} ...`)
          if (settings.warmup > 0) {
            await loadTest(
              autocannon,
              app.url,
              digestRequests(who.cred, nonces.slice(), s.path, s.headers),
              settings.warmup,
            )
          }
          const fresh = []
          for (let i = 0; i < settings.connections; i++) fresh.push(await challenge(app.url))
          const cpuBefore = await mediactl.cpu()
          const result = await loadTest(
            autocannon,
            app.url,
            digestRequests(who.cred, fresh, s.path, s.headers),
            settings.duration,
          )
          const cpuUs = (await mediactl.cpu()) - cpuBefore
          authzRows.push({
            scenario: s.name,
            server: who.server,
            path: s.path,
            ...summarize(result),
            cpuUsPerRequest: Math.round(cpuUs / Math.max(1, result.requests.total)),
            ratio: null,
          })
        }
        const [admin, reader] = authzRows.slice(-2)
        reader.ratio = reader.rps / admin.rps
        // Server CPU per request is the figure other load on the machine disturbs least.
        reader.cpuRatio = admin.cpuUsPerRequest / reader.cpuUsPerRequest
      }
    }

    // Uploads (bench/uploads.js): 1 GiB multipart and tus uploads against a streamed copy. On a
    // fresh server when the read scenarios ran: their load grows the heap for good, and the
    // peak RSS of an upload should not depend on what ran before it (both are reported).
    let uploads = null
    if (wanted('upload')) {
      let server = mediactl
      let serverApp = app
      let readServerRss = null
      if (rows.length || authzRows.length) {
        await mediactl.rssStart()
        readServerRss = (await mediactl.rssStop()).max
        await mediactl.stop()
        uploadServer = startChild('mediactl', execArgv)
        server = uploadServer
        serverApp = await server.ready
        say(
          `uploads: on a fresh mediactl at ${serverApp.url} (the read scenarios' server held ${mb(readServerRss)} MB)`,
        )
      }
      const serverCred = {
        username: serverApp.username,
        ha1: md5(`${serverApp.username}:${serverApp.realm}:${serverApp.apiKey}`),
      }
      uploads = await runUploads({ app: serverApp, server, cred: serverCred, say })
      uploads.readServerRssMB = readServerRss === null ? null : mb(readServerRss)
    }

    // Encoding (bench/encoding.js): on a fresh server of its own that runs the queued jobs (as
    // `mediactl serve`), the other servers stopped, so nothing else of the bench holds memory
    // or CPU while ffmpeg runs.
    let encoding = null
    if (wanted('encode')) {
      const startServer = async () => {
        await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop()])
        encodeServer = startChild('mediactl', execArgv, ['--jobs'])
        const ready = await encodeServer.ready
        if (!ready.jobs) throw new Error('the mediactl child runs no jobs: no queue consuming in serve')
        return { server: encodeServer, app: ready }
      }
      encoding = await runEncoding({ startServer, dist, say })
    }

    // Publishing reads (bench/publishing.js): last, on a server of its own (SQLite, or a fresh
    // PostgreSQL database with BENCH_DATABASE_URL), the other servers stopped.
    let publishing = null
    if (wanted('publish')) {
      await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop()])
      publishing = await runPublishing({
        startChild,
        execArgv,
        autocannon,
        loadTest,
        digestRequests,
        summarize,
        settings,
        say,
      })
    }

    // The mixed workload (bench/mixed.js): a server of its own on a fresh database, and the bare
    // server answering the same mix, the other servers stopped.
    let mixed = null
    if (wanted('mixed')) {
      await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop()])
      mixed = await runMixed({ startChild, execArgv, autocannon, settings, dist, say })
    }

    // The player page (bench/player.js): its own server, encoding a video, then Chromium.
    let player = null
    if (wanted('player')) {
      await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop()])
      player = await runPlayer({
        dist,
        say,
        startServer: async () => {
          const server = startPlayerServer()
          return { server, app: await server.ready }
        },
      })
    }

    // The console's library (bench/console.js): its own server and 10,000 files, then Chromium.
    let consoleLibrary = null
    if (wanted('console')) {
      await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop()])
      consoleLibrary = await runConsole({
        say,
        startServer: async () => {
          const server = startConsoleServer()
          return { server, app: await server.ready }
        },
      })
    }

    for (const row of rows) {
      if (row.server === 'bare node:http') continue
      const base = rows.find((r) => r.scenario === row.scenario && r.server === 'bare node:http')
      row.ratio = row.rps / base.rps
    }

    const info = rows.find((r) => r.scenario === scenarios[0].name && r.server === 'mediactl')
    const goals = info && {
      ratio: { target: GOAL.ratio, measured: info.ratio, met: info.ratio >= GOAL.ratio },
      p99: { target: GOAL.p99, measured: info.p99, met: info.p99 < GOAL.p99 },
    }
    const valid =
      [...rows, ...authzRows].every((r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0) &&
      (uploads?.valid ?? true) &&
      (encoding?.valid ?? true) &&
      (publishing?.valid ?? true) &&
      (mixed?.valid ?? true) &&
      player?.valid !== false &&
      consoleLibrary?.valid !== false
    const authzGoals = authzRows
      .filter((r) => r.ratio !== null)
      .map((r) => ({
        scenario: r.scenario,
        target: AUTHZ_GOAL,
        measured: r.cpuRatio,
        throughputRatio: r.ratio,
        met: r.cpuRatio >= AUTHZ_GOAL,
      }))

    say('')
    if (rows.length) {
      say(formatTable(rows))
      say('')
    }
    if (authzRows.length) {
      say(formatTable(authzRows, 'vs admin'))
      say('')
    }
    if (goals) {
      const verdict = (goal) => (goal.met ? 'met' : 'NOT met')
      say(
        `goal: platform info >= ${GOAL.ratio * 100}% of the bare server's req/s: ` +
          `${(info.ratio * 100).toFixed(1)}% -> ${verdict(goals.ratio)}`,
      )
      say(
        `goal: platform info p99 < ${GOAL.p99} ms at ${settings.connections} connections: ` +
          `${info.p99} ms -> ${verdict(goals.p99)}`,
      )
    }
    for (const goal of authzGoals) {
      say(
        `goal: ${goal.scenario} as the reader at most 25% slower than as the administrator ` +
          `(server CPU per request: admin/reader >= ${Math.round(AUTHZ_GOAL * 100)}%): ` +
          `${(goal.measured * 100).toFixed(1)}% (req/s ratio ${(goal.throughputRatio * 100).toFixed(1)}%) -> ` +
          `${goal.met ? 'met' : 'NOT met'}`,
      )
    }
    if (uploads && !uploads.skipped) {
      if (rows.length || authzRows.length) say('')
      say(formatUploadTable(uploads.rows))
      say('')
      for (const note of uploads.notes) say(`note: ${note}`)
      for (const goal of uploads.goals) {
        const shown =
          goal.goal === 'ratio'
            ? `at >= ${goal.target * 100}% of the streamed copy's MB/s (first and best rounds): ` +
              `${(goal.measured * 100).toFixed(1)}% at worst`
            : `server peak RSS < ${goal.target} MB: ${goal.measured} MB`
        say(`goal: ${goal.scenario} ${shown} -> ${goal.met ? 'met' : 'NOT met'}`)
      }
    }
    if (encoding) {
      say('')
      say(formatEncodingTable(encoding))
      say('')
      const goal = encoding.goal
      if (goal) {
        say(
          `goal: encoding pipeline (upload answered -> finished) at most ${ENCODE_GOAL.ratio}x the bare encoder ` +
            `work (fastest rounds): ${goal.measured.toFixed(3)}x -> ${goal.met ? 'met' : 'NOT met'}`,
        )
      }
    }
    if (publishing) {
      say('')
      say(formatPublishTable(publishing))
      say('')
      for (const line of publishGoalLines(publishing)) say(line)
    }
    if (mixed) {
      say('')
      say(formatMixedTable(mixed))
    }
    if (player) {
      say('')
      say(formatPlayerTable(player))
    }
    if (consoleLibrary) {
      say('')
      say(formatConsoleTable(consoleLibrary))
    }
    if (loadBefore[0] > 1) {
      say(
        `note: the 1-minute load average was ${loadBefore[0].toFixed(1)} before the run: other processes ` +
          'may have competed for the CPU; the CPU time columns are the least sensitive to that.',
      )
    }
    if (!valid) {
      say('INVALID RUN: some requests failed (non-2xx, socket errors, timeouts, uploads or encodings); see the tables.')
    }

    const report = {
      date: new Date().toISOString(),
      command: 'npm run bench',
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        memoryGB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
      },
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
      settings: { ...settings, database: 'sqlite', pipelining: 1, logLevel: app.logLevel },
      responses: scenarios.map((s) => ({
        scenario: s.name,
        status: s.status,
        bytes: s.bytes,
        headers: s.headersCaptured,
      })),
      results: rows,
      authorization: authzRows,
      goals,
      authzGoals,
      uploads,
      encoding,
      publishing,
      mixed,
      player,
      console: consoleLibrary,
      valid,
    }
    mkdirSync(dirname(RESULTS), { recursive: true })
    writeFileSync(RESULTS, JSON.stringify(report, null, 2) + '\n')
    say(`results written to ${RESULTS}`)
    process.exitCode = valid ? 0 : 1
  } finally {
    await Promise.all([mediactl.stop(), bare?.stop(), uploadServer?.stop(), encodeServer?.stop()])
    if (settings.cpuProf) say(`CPU profile of the mediactl server written to ${settings.cpuProf}`)
  }
}

const role = process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length)
if (role === 'mediactl') await mediactlServer()
else if (role === 'bare') bareServer()
else if (role === 'publishing') publishingServer({ dist, answerIpc })
else if (role === 'mixed') publishingServer({ dist, answerIpc, prepare: prepareMixed })
else if (role === 'mixed-bare') mixedBareServer({ answerIpc, serverOptions: SERVER_OPTIONS })
else await main()
