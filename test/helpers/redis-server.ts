import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { loadConfig } from '../../src/kernel/index.js'
import { type TestApp, startApp } from './app.js'
import { waitFor } from './wait.js'

/** A free port of 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Whether something listens on `port` of 127.0.0.1 (binding it fails). */
function taken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer().listen(port, '127.0.0.1')
    probe.once('listening', () => probe.close(() => resolve(false)))
    probe.once('error', () => resolve(true))
  })
}

/**
 * A redis-server of the test's own on `port`, started and ready (the shared Redis is never stopped). Started again
 * on the same port after a kill, it may find the port still held for a moment (the killed server's sockets, another
 * test's connection given that number): one that exits before listening is started again, within the bound.
 */
export async function startRedis(port: number): Promise<ChildProcess> {
  // A bound on failure only: under CI's load (two legs and the repeated runs at once) a start took over 10 s.
  const deadline = Date.now() + 30_000
  let child: ChildProcess | undefined
  let tries = 0
  await waitFor(
    async () => {
      if (!child) {
        tries++
        child = spawn(
          'redis-server',
          ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
          {
            stdio: 'ignore',
          },
        )
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        if (Date.now() > deadline)
          throw new Error(`redis-server on port ${port} exited (${child.exitCode}) before listening, ${tries} tries`)
        child = undefined
        return false
      }
      // Listening, and still ours: one that lost the port to another socket exits at once.
      return (await taken(port)) && child.exitCode === null
    },
    { timeout: 30_000, interval: 100, message: `redis-server on port ${port}` },
  )
  return child!
}

/** Kills a redis-server `startRedis` started (as a crash would: SIGKILL), once it is gone. */
export function stopRedis(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/**
 * A test app using state-redis on a redis-server of its own, which the test may stop
 * (`stop`) and start again (`restart`) on the same port.
 */
export async function appWithOwnRedis(): Promise<{
  app: TestApp
  port: number
  stop(): Promise<void>
  restart(): Promise<void>
  close(): Promise<void>
}> {
  const port = await freePort()
  let redis: ChildProcess | undefined = await startRedis(port)
  const plugins = loadConfig({ env: {}, cwd: '/' }).config.plugins
  const app = await startApp({
    config: { redis_url: `redis://127.0.0.1:${port}`, plugins: [...plugins, 'state-redis'] },
  })
  return {
    app,
    port,
    stop: () => stopRedis(redis),
    async restart() {
      redis = await startRedis(port)
    },
    async close() {
      await app.close()
      await stopRedis(redis)
    },
  }
}
