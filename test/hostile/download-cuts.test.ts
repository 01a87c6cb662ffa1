import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { xmlOf } from '../helpers/answers.js'
import type { TestApp } from '../helpers/app.js'
import type { DigestClient } from '../helpers/digest-client.js'
import { type XmlObject, list, text } from '../helpers/xml.js'
import {
  makeMedia,
  pathOf,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from '../plugins/encoding/encoding.helpers.js'
import { other } from '../plugins/files/files.helpers.js'
import { makePlace, published } from '../plugins/resources/resources.helpers.js'
import { expectDescriptorsBack, openDescriptors } from './hostile.helpers.js'
import {
  type HandlerProbe,
  type RawOutcome,
  SEED,
  expectServing,
  probeHandlers,
  rawExchange,
  seeded,
  watchLeakedHandles,
} from './cuts.helpers.js'

/**
 * Media downloads with `Range`, the client gone at random offsets of the answer (seeded:
 * MEDIACTL_TEST_SEED replays a run), as a player seeking away does: each storage read stream
 * must be closed with its answer, so the open descriptors come back to where they were, and
 * the server keeps answering (a whole download afterwards gives exactly the bytes).
 */

const MiB = 1024 * 1024
const CUTS = 30

/** A download: where it is, how it authenticates, what it holds. */
interface Target {
  name: string
  /** Path and query (a token link carries its token). */
  path: string
  /** Digest as the administrator; otherwise the link's token is the credential. */
  digest: boolean
  content: Buffer
}

describe('downloads cut at random offsets of the answer', () => {
  let app: TestApp
  let admin: DigestClient
  let probe: HandlerProbe
  const targets: Target[] = []
  let challenged = false
  const handles = watchLeakedHandles()

  beforeAll(async () => {
    app = await startEncodingApp()
    probe = probeHandlers(app)
    admin = app.client
    // A large original, published through an api channel (which offers `source`), and a short
    // video encoded to flavors served under the file's own address.
    const original = other(6 * MiB)
    const file = await uploadMedia(admin, original, 'original.bin')
    const video = await makeMedia('video', { seconds: 2 })
    const clip = await uploadMedia(admin, video, 'clip.mp4')
    // The pipeline is done with both (the original is no media: nothing to encode) before counting descriptors.
    await waitForStatus(admin, file)
    expect((await waitForStatus(admin, clip)).at(-1)!.status).toBe('finished')
    const place = await makePlace(admin, 'Cut TV')
    xmlOf(await admin.post(`/media/${place.media}/channels`, { form: { name: 'Partners', type: 'api' } }), 201)
    const resource = await published(admin, place.stream, { file, title: 'Original', visibility: 'visible' })
    const info = xmlOf(await admin.get(`/resource/${resource}?with-token=1`), 200).resource as XmlObject
    const source = list<XmlObject>(info.flavors.flavor).find((flavor) => flavor['@name'] === 'source')!
    const flavor = `/file/${clip}/flavor/video/240p.mp4`
    const encoded = await rawExchange(
      app.url,
      { method: 'GET', path: flavor, headers: { authorization: await authorization('GET', flavor) } },
      { kind: 'complete' },
    )
    expect(encoded.status).toBe(200)
    targets.push(
      { name: 'resource source, Digest', path: `/resource/${resource}/source`, digest: true, content: original },
      { name: 'resource source, token link', path: pathOf(text(source)), digest: false, content: original },
      { name: 'file flavor, Digest', path: flavor, digest: true, content: encoded.body! },
    )
  })

  afterAll(async () => {
    handles.stop()
    await app?.close()
  })

  /**
   * The descriptors are back to `baseline`, and none came back through garbage collection
   * since `handles.leaked[from]` (a read stream left open by its answer).
   */
  async function expectNoLeakedStreams(baseline: number, from: number): Promise<void> {
    await expectDescriptorsBack(baseline)
    expect(handles.leaked.slice(from), 'read streams closed by garbage collection, not by their answer').toEqual([])
  }

  /** A Digest Authorization of the administrator for one request (one nonce, a growing count). */
  async function authorization(method: string, path: string): Promise<string> {
    if (!challenged) await admin.handshake()
    challenged = true
    return admin.authorization(method, path)
  }

  /** A GET of a target with `Range`, behaving as `finish` says. */
  async function get(target: Target, range: string | undefined, at?: number): Promise<RawOutcome> {
    const headers: Record<string, string> = range ? { range } : {}
    if (target.digest) headers.authorization = await authorization('GET', target.path)
    return rawExchange(
      app.url,
      { method: 'GET', path: target.path, headers },
      at === undefined ? { kind: 'complete' } : { kind: 'cut-response', at },
    )
  }

  /** A random range of an object of `size` bytes, as players ask them; with the bytes it covers. */
  function rangeOf(random: ReturnType<typeof seeded>, size: number): { header: string; start: number; end: number } {
    const start = random.int(0, size - 1)
    switch (random.int(0, 2)) {
      case 0: {
        const end = random.int(start, size - 1)
        return { header: `bytes=${start}-${end}`, start, end }
      }
      case 1:
        return { header: `bytes=${start}-`, start, end: size - 1 }
      default: {
        const length = random.int(1, size)
        return { header: `bytes=-${length}`, start: size - length, end: size - 1 }
      }
    }
  }

  /** Checks a whole ranged answer: 206, its Content-Range, exactly the bytes asked. */
  function expectRange(outcome: RawOutcome, target: Target, start: number, end: number): void {
    expect(outcome.status).toBe(206)
    const head = outcome.received.subarray(0, outcome.received.indexOf('\r\n\r\n')).toString('latin1')
    expect(head).toMatch(new RegExp(`\\r\\ncontent-range: bytes ${start}-${end}/${target.content.length}\\r\\n`, 'i'))
    expect(outcome.body!.equals(target.content.subarray(start, end + 1))).toBe(true)
  }

  it.each(['resource source, Digest', 'resource source, token link', 'file flavor, Digest'])(
    `%s: ${CUTS} ranged downloads cut at random offsets, then the descriptors are back`,
    async (name) => {
      const target = targets.find((each) => each.name === name)!
      const random = seeded(`${SEED} ${name}`)
      const size = target.content.length
      // Warm up (pools, caches), then count.
      expectRange(await get(target, `bytes=0-${size - 1}`), target, 0, size - 1)
      const baseline = openDescriptors()
      const from = probe.seen.length
      const leaked = handles.leaked.length
      let cut = 0
      for (let i = 0; i < CUTS; i++) {
        const { header, start, end } = rangeOf(random, size)
        // Anywhere in the answer: its head, or its body (a bit past the end: then it arrives whole).
        const at = random.int(1, end - start + 1 + 400)
        const outcome = await get(target, header, at)
        if (outcome.body) expectRange(outcome, target, start, end)
        else cut += 1
      }
      // Most downloads of the large original were cut mid-answer (a short range may arrive whole
      // before its cut point; a flavor of a short clip is small enough to be in flight whole).
      if (size > MiB) expect(cut).toBeGreaterThan(CUTS / 2)
      await probe.expectSettled(from)
      await expectServing(admin)
      await expectNoLeakedStreams(baseline, leaked)
      const { start, end } = rangeOf(random, size)
      expectRange(await get(target, `bytes=${start}-${end}`), target, start, end)
    },
  )

  it('10 ranged downloads of each, cut at once: the descriptors are back, the server answers', async () => {
    const random = seeded(`${SEED} at once`)
    // Warm up as many connections (and database connections) as the burst uses.
    await Promise.all(targets.flatMap((target) => Array.from({ length: 10 }, () => get(target, 'bytes=0-0'))))
    const baseline = openDescriptors()
    const from = probe.seen.length
    const leaked = handles.leaked.length
    await Promise.all(
      targets.flatMap((target) =>
        Array.from({ length: 10 }, () => {
          const { header } = rangeOf(random, target.content.length)
          return get(target, header, random.int(1, 64 * 1024))
        }),
      ),
    )
    await probe.expectSettled(from)
    await expectServing(admin)
    await expectNoLeakedStreams(baseline, leaked)
    for (const target of targets) {
      const size = target.content.length
      expectRange(await get(target, `bytes=0-${size - 1}`), target, 0, size - 1)
    }
  })
})
