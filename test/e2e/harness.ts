import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root: bin/run.js runs the compiled dist/ (npm test builds it first). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const BIN = join(ROOT, 'bin', 'run.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  cwd: string
  /** MEDIACTL_* variables; every MEDIACTL_* variable of the test process is removed first. */
  env?: Record<string, string>
}

/** The test process environment without any MEDIACTL_* variable, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEDIACTL_')) env[key] = value
  return { ...env, NO_COLOR: '1', ...extra }
}

function spawnCli(args: string[], options: CliOptions): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs `mediactl <args>` to completion. */
export function cli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnCli(args, options)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }))
  })
}

/** Runs `mediactl <args> --json` and parses stdout (the command must succeed). */
export async function cliJson<T = Record<string, unknown>>(args: string[], options: CliOptions): Promise<T> {
  const result = await cli([...args, '--json'], options)
  if (result.code !== 0) {
    throw new Error(`mediactl ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`)
  }
  return JSON.parse(result.stdout) as T
}

/** A long-running `mediactl` process (`serve`, `worker`). */
export interface Running {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves when stdout contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>
  /** Resolves with the exit code and output when the process ends. */
  exited: Promise<CliResult>
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>
}

export interface Server extends Running {
  /** The URL `serve` printed (real port, 127.0.0.1). */
  url: string
  /** The public URL `serve` printed. */
  publicUrl: string
}

const SERVING = /mediactl serving on (\S+) \(public URL (\S+)\)/

/** Starts `mediactl <args>` and resolves once its stdout contains `ready`. */
export function start(args: string[], options: CliOptions, ready: string): Promise<Running> {
  const child = spawnCli(args, options)
  let stdout = ''
  let stderr = ''
  const waiters: { text: string; resolve: () => void }[] = []
  const exited = new Promise<CliResult>((resolveExit, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolveExit({ code, signal, stdout, stderr }))
  })
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString('utf8')
    for (const w of [...waiters]) {
      if (stdout.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  })
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const name = args[0]
  const waitFor = (text: string, timeoutMs = 60_000): Promise<void> =>
    new Promise((resolveWait, reject) => {
      if (stdout.includes(text)) return resolveWait()
      const timer = setTimeout(
        () => reject(new Error(`${name} did not print ${JSON.stringify(text)}\n${stdout}\n${stderr}`)),
        timeoutMs,
      )
      waiters.push({
        text,
        resolve: () => {
          clearTimeout(timer)
          resolveWait()
        },
      })
      void exited.then(() => {
        clearTimeout(timer)
        if (!stdout.includes(text)) reject(new Error(`${name} exited before printing ${text}\n${stdout}\n${stderr}`))
      })
    })
  return waitFor(ready).then(() => ({
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor,
    exited,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }))
}

/**
 * Starts `mediactl serve --host 127.0.0.1 --port 0 <args>` and resolves once it prints
 * the address it listens on (port 0 picks a free port; serve prints the real one).
 */
export async function serve(args: string[], options: CliOptions): Promise<Server> {
  const running = await start(['serve', '--host', '127.0.0.1', '--port', '0', ...args], options, 'stop with Ctrl-C')
  const m = SERVING.exec(running.stdout())!
  return { ...running, url: m[1]!, publicUrl: m[2]! }
}

/** A fresh empty directory (real path, so it compares equal to what the CLI prints). */
export function tempDir(prefix = 'mediactl-e2e-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

export interface RawExchange {
  /** Writes more bytes on the socket. */
  write(data: string): void
  /** Resolves with the status and body once the whole response has arrived. */
  response: Promise<{ status: number; headers: string; body: string }>
  /**
   * Resolves when the server sends `100 Continue` (asked with `Expect: 100-continue`): it has
   * read the headers and the handler waits for the body. The interim answer is not `response`.
   */
  continued: Promise<void>
}

/**
 * Opens a raw TCP connection and writes `head`; the caller writes the rest later, so the
 * request stays in flight as long as the test wants. The response is read by Content-Length.
 */
export function rawExchange(url: string, head: string): Promise<RawExchange> {
  const target = new URL(url)
  return new Promise((resolveOpen, reject) => {
    const socket = connect(Number(target.port), target.hostname)
    let data = Buffer.alloc(0)
    let onContinue = (): void => undefined
    const continued = new Promise<void>((resolve) => (onContinue = resolve))
    const response = new Promise<{ status: number; headers: string; body: string }>(
      (resolveResponse, rejectResponse) => {
        const check = (ended: boolean): void => {
          const end = data.indexOf('\r\n\r\n')
          if (end < 0) {
            if (ended) rejectResponse(new Error(`connection closed before a full response: ${data.toString()}`))
            return
          }
          const headers = data.subarray(0, end).toString('latin1')
          const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headers)?.[1] ?? NaN)
          const body = data.subarray(end + 4)
          if (body.length >= length || (ended && Number.isNaN(length))) {
            resolveResponse({
              status: Number(headers.split(' ')[1]),
              headers,
              body: body.toString('utf8'),
            })
          } else if (ended) {
            rejectResponse(new Error(`connection closed mid-body: ${data.toString()}`))
          }
        }
        socket.on('data', (chunk: Buffer) => {
          data = Buffer.concat([data, chunk])
          const interim = data.indexOf('\r\n\r\n')
          if (interim >= 0 && /^HTTP\/1\.1 100 /.test(data.subarray(0, interim).toString('latin1'))) {
            data = data.subarray(interim + 4)
            onContinue()
          }
          check(false)
        })
        socket.on('end', () => check(true))
        socket.on('error', rejectResponse)
      },
    )
    response.catch(() => undefined)
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.write(head)
      resolveOpen({ write: (chunk) => socket.write(chunk), response, continued })
    })
  })
}

/** The pids of the processes `pid` started (a cluster's HTTP processes). */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0)
  } catch {
    return [] // ps exits 1 when there is none
  }
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
