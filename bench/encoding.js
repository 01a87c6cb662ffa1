/**
 * Encoding benchmark, part of `npm run bench` (bench/run.js calls `runEncoding` last;
 * `BENCH_ONLY=encode` runs it alone). docs/benchmarks.md, section Encoding, explains the
 * figures.
 *
 * What it measures, for one test video (made once per run with the bundled ffmpeg: `testsrc2`
 * 1920x1080 at 25 fps with a `sine` tone, H.264 `-preset fast` + AAC in MP4, 60 s by default):
 *   1. bare: the encoder port itself (`FfmpegEncoder` from dist/plugins/encoder-ffmpeg, the
 *      config the server gets: config/default.yaml's `encoder-ffmpeg` section) on the local
 *      file, doing what the encoding job asks of it: `probe`, `encode` (the MP4 ladder in one
 *      ffmpeg process, the HLS cut with `-c copy`, ffprobe of each flavor, the thumbnail),
 *      `snapshots` (10 frames). The same ffmpeg and ffprobe processes with the same arguments,
 *      and no pipeline around them;
 *   2. pipeline: the same file uploaded (`POST /files`, multipart, Digest) to a fresh mediactl
 *      child of bench/run.js (shipped defaults: storage-fs, queue-inline, SQLite), timed from
 *      the upload's answer until `GET /file/<slug>/status` says `finished` (polled every
 *      200 ms), then deleted. On top of the bare work it copies the original out of storage,
 *      writes progress and states to the database, stores every rendition (HLS segment by
 *      segment) and records them.
 * Goal: pipeline wall time at most 1.10 times the bare wall time. Both also report CPU time
 * (Linux /proc: the ffmpeg/ffprobe children and the server process itself) and the CPU time
 * every other process of the machine used meanwhile, since other load on the two cores moves
 * wall times. The pipeline's steps are split by the progress the status shows (3%: copied and
 * probed, 80%: encoded, 88%: snapshots taken, 98%: stored), to within a poll.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_ENCODE_SECONDS [60]  length of the test video
 *   BENCH_ENCODE_ROUNDS [1]    rounds of bare + pipeline (about 3 to 4 minutes each on 2 cores)
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { digestFetch, md5 } from './digest.js'
import { machineBusyMs, multipartUpload, slugOf } from './uploads.js'

export const encodeSettings = {
  seconds: Math.max(1, Number(process.env.BENCH_ENCODE_SECONDS ?? 60)),
  rounds: Math.max(1, Number(process.env.BENCH_ENCODE_ROUNDS ?? 1)),
}

/** Goal of the encoding issue: the pipeline at most 10% slower than the bare encoder work. */
export const ENCODE_GOAL = { ratio: 1.1 }

/** Snapshots the encoding job takes of a video (plugins/encoding/encoding-run.ts, SNAPSHOT_COUNT). */
const SNAPSHOTS = 10
const POLL_MS = 200
/** Longest wait for `finished` (a job that never starts must not hang the bench). */
const MAX_WAIT_MS = 3_600_000
/** Progress marks of the encoding job (plugins/encoding/encoding-run.ts, STEPS). */
const MARKS = { probed: 3, encoded: 80, snapshots: 88, stored: 98 }

/** CPU time of a process, in ms: its own and that of its waited-for children (Linux /proc); null elsewhere. */
function procCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces): utime is the 14th field overall.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number)
    return { self: (utime + stime) * 10, children: (cutime + cstime) * 10 }
  } catch {
    return null
  }
}

const diffCpu = (after, before) =>
  after && before ? { self: after.self - before.self, children: after.children - before.children } : null

/** Runs one process to its end; rejects with its stderr when it fails. */
function runBinary(binary, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(binary.path, args, {
      env: { ...process.env, ...binary.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${binary.path} exited with ${code}: ${stderr}`)),
    )
  })
}

/** The test video: 1080p25 test pattern with a tone, H.264 (fast preset) and AAC in MP4. */
async function makeTestVideo(ffmpeg, path, seconds) {
  await runBinary(ffmpeg, [
    ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=25:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'fast', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-b:a', '128k', '-shortest', '-movflags', '+faststart', path],
  ])
}

const round1 = (value) => Math.round(value * 10) / 10
const statusOf = (xmlText) => ({
  status: /<encoding_status>(?:<!\[CDATA\[)?([a-z]+)/.exec(xmlText)?.[1] ?? null,
  progress: Number(/<encoding_progress>(\d+)<\/encoding_progress>/.exec(xmlText)?.[1] ?? NaN),
})

/**
 * Runs the encoding scenario: `startServer()` starts a fresh mediactl child (bench/run.js's
 * startChild) and resolves with its handle and ready message; `dist(path)` imports a compiled
 * module. Resolves with the runs, rows, goal and validity for the report.
 */
export async function runEncoding({ startServer, dist, say }) {
  const { loadConfig, pluginConfig } = await dist('src/kernel/index.js')
  const { FfmpegEncoder, encoderConfigSchema } = await dist('plugins/encoder-ffmpeg/index.js')
  const { findBinaries } = await dist('plugins/encoder-ffmpeg/ffmpeg-binaries.js')

  const workDir = mkdtempSync(join(tmpdir(), 'mediactl-bench-encode-'))
  // The encoder config the server gets from the shipped defaults (config/default.yaml).
  const { config } = loadConfig({ env: {}, file: undefined, cwd: workDir, overrides: { data_dir: workDir } })
  const encoderConfig = pluginConfig(config, 'encoder-ffmpeg', encoderConfigSchema)
  const binaries = findBinaries()
  const out = {
    settings: { ...encodeSettings, snapshots: SNAPSHOTS, pollMs: POLL_MS, ffmpeg: binaries.ffmpeg.path },
    encoder: {
      preset: encoderConfig.video.preset,
      ladder: encoderConfig.video.ladder.map((rung) => rung.name),
      hls: encoderConfig.hls.enabled,
      threads: encoderConfig.threads,
    },
    source: null,
    runs: [],
    rows: [],
    goal: null,
    valid: true,
  }
  let server
  const onSignal = (signal) => {
    rmSync(workDir, { recursive: true, force: true })
    process.kill(process.pid, signal)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const source = join(workDir, 'source.mp4')
    say(`encode: making a ${encodeSettings.seconds} s 1080p25 test video in ${workDir} ...`)
    const madeAt = performance.now()
    await makeTestVideo(binaries.ffmpeg, source, encodeSettings.seconds)
    const { size } = await stat(source)
    out.source = { seconds: encodeSettings.seconds, bytes: size, makeMs: Math.round(performance.now() - madeAt) }
    say(`encode: ${(size / 1e6).toFixed(1)} MB in ${(out.source.makeMs / 1000).toFixed(1)} s`)

    const started = await startServer()
    server = started.server
    const app = started.app
    const cred = { username: app.username, ha1: md5(`${app.username}:${app.realm}:${app.apiKey}`) }
    const encoder = new FfmpegEncoder(binaries, encoderConfig)

    /** Common bookkeeping of one measured run: wall time, CPU of the bench, the server, the rest. */
    const measure = async (kind, round, body) => {
      say(`encode: round ${round}, ${kind} ...`)
      const load = loadavg()[0]
      const bench0 = procCpuMs(process.pid)
      const server0 = procCpuMs(server.child.pid)
      const busy0 = machineBusyMs()
      const run = { kind, round, load1: round1(load), ok: false }
      const t0 = performance.now()
      try {
        Object.assign(run, await body(run))
        run.ok = !run.error
      } catch (error) {
        run.error = String(error?.message ?? error)
      }
      run.ms ??= Math.round(performance.now() - t0)
      const bench = diffCpu(procCpuMs(process.pid), bench0)
      const srv = diffCpu(procCpuMs(server.child.pid), server0)
      const busy = busy0 === null ? null : machineBusyMs() - busy0
      // ffmpeg/ffprobe are children of the bench (bare) or of the server (pipeline).
      run.ffmpegCpuMs = kind === 'bare' ? (bench?.children ?? null) : (srv?.children ?? null)
      run.serverCpuMs = srv?.self ?? null
      run.benchCpuMs = bench?.self ?? null
      const ours = (bench ? bench.self + bench.children : 0) + (srv ? srv.self + srv.children : 0)
      run.otherCpuMs = busy === null ? null : Math.max(0, busy - ours)
      if (!run.ok) {
        out.valid = false
        say(`encode: ${kind} FAILED: ${run.error}`)
      }
      out.runs.push(run)
      return run
    }

    for (let round = 1; round <= encodeSettings.rounds; round++) {
      await measure('bare', round, async () => {
        const dir = join(workDir, `bare-${round}`)
        mkdirSync(join(dir, 'out'), { recursive: true })
        mkdirSync(join(dir, 'snapshots'))
        const signal = new globalThis.AbortController().signal
        const t0 = performance.now()
        const probe = await encoder.probe(source, signal)
        const t1 = performance.now()
        const outputs = await encoder.encode({
          input: source,
          outputDir: join(dir, 'out'),
          probe,
          signal,
          onProgress: () => undefined,
        })
        const t2 = performance.now()
        const snapshots = await encoder.snapshots(source, join(dir, 'snapshots'), SNAPSHOTS, probe, signal)
        const t3 = performance.now()
        rmSync(dir, { recursive: true, force: true })
        const renditions = outputs.length + snapshots.length
        return {
          ms: Math.round(t3 - t0),
          steps: { probe: Math.round(t1 - t0), encode: Math.round(t2 - t1), snapshots: Math.round(t3 - t2) },
          renditions,
          ...(probe.type === 'video' && snapshots.length === SNAPSHOTS ? {} : { error: `probe ${probe.type}` }),
        }
      })

      await measure('pipeline', round, async (run) => {
        const name = `bench-encode-${round}-${randomBytes(4).toString('hex')}.mp4`
        const uploadAt = performance.now()
        const answer = await multipartUpload(app, cred, source, size, name)
        const t0 = performance.now()
        run.uploadMs = Math.round(t0 - uploadAt)
        const slug = slugOf(answer.body)
        if (answer.status < 200 || answer.status > 299 || !slug) {
          return { error: `POST /files answered ${answer.status}: ${answer.body.slice(0, 200)}` }
        }
        // First poll at which the progress reached each mark (ms after the upload's answer).
        const seen = {}
        let last
        for (;;) {
          const res = await digestFetch(app.url, cred, 'GET', `/file/${slug}/status`)
          const now = performance.now() - t0
          if (res.status !== 200) {
            last = { error: `GET /file/${slug}/status answered ${res.status}` }
            break
          }
          const { status, progress } = statusOf(res.body.toString('utf8'))
          for (const [mark, percent] of Object.entries(MARKS)) {
            if (seen[mark] === undefined && (progress >= percent || status === 'finished')) seen[mark] = Math.round(now)
          }
          if (status === 'finished' || status === 'failed') {
            last = { ms: Math.round(now), status }
            break
          }
          if (now > MAX_WAIT_MS) {
            last = { error: `not finished after ${MAX_WAIT_MS / 1000} s (status ${status}, ${progress}%)` }
            break
          }
          await sleep(POLL_MS)
        }
        const ms = last.ms ?? Math.round(performance.now() - t0)
        const result = { ms, marks: seen, slug }
        if (last.error) result.error = last.error
        else if (last.status !== 'finished') result.error = `encoding ${last.status}`
        const removed = await digestFetch(app.url, cred, 'DELETE', `/file/${slug}`)
        if (removed.status !== 204) result.error ??= `DELETE /file/${slug} answered ${removed.status}`
        return result
      })
    }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    rmSync(workDir, { recursive: true, force: true })
    await server?.stop()
  }

  // Rows: each kind's first round and its fastest; the goal on the worse of the two ratios.
  const ok = (kind) => out.runs.filter((run) => run.kind === kind && run.ok)
  const fastest = (kind) => ok(kind).reduce((a, b) => (a && a.ms <= b.ms ? a : b), undefined)
  for (const kind of ['bare', 'pipeline']) {
    const runs = out.runs.filter((run) => run.kind === kind)
    const best = fastest(kind)
    const base = fastest('bare')
    out.rows.push({
      scenario: kind,
      allMs: runs.map((run) => run.ms),
      bestMs: best?.ms ?? null,
      ratio: best && base ? best.ms / base.ms : null,
      ffmpegCpuMs: best?.ffmpegCpuMs ?? null,
      serverCpuMs: kind === 'pipeline' ? (best?.serverCpuMs ?? null) : null,
      otherCpuMs: best?.otherCpuMs ?? null,
      load1: best?.load1 ?? null,
      ok: runs.length > 0 && runs.every((run) => run.ok),
    })
  }
  const [bare, pipe] = out.rows
  if (bare.bestMs && pipe.bestMs) {
    // Round by round too: a round's pipeline against the bare run just before it.
    const perRound = out.runs
      .filter((run) => run.kind === 'pipeline' && run.ok)
      .map((run) => {
        const before = out.runs.find((b) => b.kind === 'bare' && b.round === run.round && b.ok)
        return before ? run.ms / before.ms : null
      })
      .filter((ratio) => ratio !== null)
    const measured = pipe.bestMs / bare.bestMs
    out.goal = {
      goal: 'pipeline / bare wall time',
      target: ENCODE_GOAL.ratio,
      measured,
      perRound,
      cpuRatio: pipe.ffmpegCpuMs && bare.ffmpegCpuMs ? (pipe.ffmpegCpuMs + pipe.serverCpuMs) / bare.ffmpegCpuMs : null,
      met: measured <= ENCODE_GOAL.ratio,
    }
  }
  return out
}

/** The encoding table for the console. */
export function formatEncodingTable(out) {
  const header = ['Scenario', 'wall s', 'vs bare', 'ffmpeg CPU s', 'server CPU s', 'other CPU s', 'load', 'ok']
  const secs = (ms) => (ms === null || ms === undefined ? '-' : (ms / 1000).toFixed(1))
  const lines = out.rows.map((r) => [
    r.scenario,
    r.allMs.length > 1 ? `${secs(r.bestMs)} (${r.allMs.map(secs).join(', ')})` : secs(r.bestMs),
    r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(1)}%`,
    secs(r.ffmpegCpuMs),
    secs(r.serverCpuMs),
    secs(r.otherCpuMs),
    r.load1 === null ? '-' : r.load1.toFixed(1),
    r.ok ? 'yes' : 'NO',
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const fmt = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  const table = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)]
  const bareRun = out.runs.find((run) => run.kind === 'bare' && run.ok)
  const pipeRun = out.runs.find((run) => run.kind === 'pipeline' && run.ok)
  if (bareRun) {
    const s = bareRun.steps
    table.push(
      '',
      `bare steps (round 1): probe ${secs(s.probe)} s, encode ${secs(s.encode)} s, snapshots ${secs(s.snapshots)} s`,
    )
  }
  if (pipeRun) {
    const m = pipeRun.marks
    table.push(
      `pipeline marks (round 1, s after the upload answer, upload itself ${secs(pipeRun.uploadMs)} s): ` +
        `copied+probed ${secs(m.probed)}, encoded ${secs(m.encoded)}, snapshots ${secs(m.snapshots)}, ` +
        `stored ${secs(m.stored)}, finished ${secs(pipeRun.ms)}`,
    )
  }
  return table.join('\n')
}
