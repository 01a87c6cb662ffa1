import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { InFlight } from '../../src/kernel/http/in-flight.js'
import { definePlugin, reply, xml } from '../../src/kernel/index.js'
import { startApp } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'

/** The handlers still running: what shutdown waits for, and what tests of cut requests wait for. */

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok
    reject = fail
  })
  return { promise, resolve, reject }
}

/** Whether a connection to the URL's port is refused. */
function refuses(target: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname)
    socket.on('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('error', () => resolve(true))
  })
}

describe('InFlight', () => {
  it('counts work until it settles, fulfilled or rejected, and counts every start', async () => {
    const inFlight = new InFlight()
    const a = deferred()
    const b = deferred()
    inFlight.track(a.promise)
    inFlight.track(b.promise.catch(() => undefined))
    expect(inFlight.count).toBe(2)
    expect(inFlight.started).toBe(2)
    a.resolve()
    await waitFor(() => inFlight.count === 1)
    b.reject(new Error('gone'))
    await waitFor(() => inFlight.count === 0)
    expect(inFlight.started).toBe(2)
  })

  it('idle resolves true at once when nothing runs, true when the last settles, false after its timeout', async () => {
    const inFlight = new InFlight()
    expect(await inFlight.idle(10)).toBe(true)
    const work = deferred()
    inFlight.track(work.promise)
    expect(await inFlight.idle(20)).toBe(false)
    const waiting = inFlight.idle(60_000)
    work.resolve()
    expect(await waiting).toBe(true)
  })
})

describe('shutdown waits for the handler of a request its client cut', () => {
  it('the handler outliving its response ends before the kernel closes the database', async () => {
    const release = deferred()
    const events: string[] = []
    const slow = definePlugin({
      name: 'test-slow-cleanup',
      register(ctx) {
        ctx.routes((r) =>
          r.get(
            '/slow-cleanup',
            async () => {
              events.push('handler started')
              await release.promise
              // What a cut upload's cleanup does: one more statement on the database.
              await ctx.reader.one('select 1 as one')
              events.push('handler ended')
              return reply.xml(200, xml.str('done', 'yes'))
            },
            { public: true },
          ),
        )
      },
    })
    const app = await startApp({ plugins: [slow as never] })
    const target = new URL(app.url)
    const req = httpRequest({ host: target.hostname, port: target.port, path: '/slow-cleanup' })
    req.on('error', () => undefined)
    req.end()
    await waitFor(() => events.includes('handler started'))
    // The client goes away; its handler goes on.
    req.destroy()
    expect(app.kernel.inFlight.count).toBe(1)
    const closed = app.close().then(() => events.push('kernel closed'))
    // The listener goes first: once the port refuses, the kernel would go on to the database.
    await waitFor(() => refuses(target), { message: 'the listener to close' })
    // A bounded look for something that must not happen: the close still waits for the handler.
    const outcome = await Promise.race([closed.then(() => 'closed'), delay(300).then(() => 'still waiting')])
    expect(outcome).toBe('still waiting')
    release.resolve()
    await closed
    expect(events).toEqual(['handler started', 'handler ended', 'kernel closed'])
    expect(app.kernel.inFlight.count).toBe(0)
  })
})
