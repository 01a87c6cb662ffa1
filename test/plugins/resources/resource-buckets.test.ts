import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ResourceFilter, resourceQueries } from '../../../plugins/resources/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { TEST_PG_URL } from '../../helpers/database.js'
import { publishingDataOn } from './publishing-data.helpers.js'

/**
 * A stream's count and its pages past the first bucket come from `resource_buckets`, kept by
 * triggers: after any mix of batched inserts, deletes, visibility changes and moves between
 * streams (the writes the API, the cascades and a bulk import make), they must equal what a
 * plain `count(*)` and `order by id limit offset` over the resources answer, on either
 * database and for both filters (every resource; the visible ones).
 */
const VISIBILITIES = ['visible', 'hidden', 'draft'] as const
/** Most resources the property makes in all (two streams): enough for a dozen buckets of 1,024. */
const MAX_ROWS = 14_000

type Op =
  | { kind: 'insert'; stream: 0 | 1; count: number; visibility: number }
  | { kind: 'delete'; every: number; from: number }
  | { kind: 'hide'; every: number; visibility: number }
  | { kind: 'move'; every: number; to: 0 | 1 }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    stream: fc.constantFrom(0 as const, 1 as const),
    count: fc.integer({ min: 1, max: 2600 }),
    visibility: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), every: fc.integer({ min: 2, max: 40 }), from: fc.nat(5000) }),
  fc.record({ kind: fc.constant('hide' as const), every: fc.integer({ min: 2, max: 40 }), visibility: fc.nat(2) }),
  fc.record({ kind: fc.constant('move' as const), every: fc.integer({ min: 3, max: 60 }), to: fc.constantFrom(0, 1) }),
) as fc.Arbitrary<Op>

describe('stream counts and deep pages from resource buckets', () => {
  let app: TestApp
  let streams: [number, number]
  let fileId: number
  let made = 0

  beforeAll(async () => {
    app = await startApp()
    const data = await publishingDataOn(app, 2)
    const knex = app.kernel.em().getKnex()
    const second = await app.client.post(`/media/${data.media}/streams`, {
      form: { title: 'Seminars', visibility: 'visible' },
    })
    expect(second.status, second.body).toBe(201)
    const rows = (await knex('streams').orderBy('id').select('id')) as { id: number }[]
    streams = [rows[0]!.id, rows[1]!.id]
    fileId = ((await knex('files').first('id')) as { id: number }).id
  })
  afterAll(() => app?.close())

  const knex = () => app.kernel.em().getKnex()

  async function apply(op: Op): Promise<void> {
    const db = knex()
    if (op.kind === 'insert') {
      const count = Math.min(op.count, MAX_ROWS - (await total()))
      if (count <= 0) return
      const at = new Date()
      const rows = Array.from({ length: count }, (_, i) => ({
        slug: `bucket-${(made += 1)}`,
        title: `Resource ${made}`,
        subtitle: '',
        description: '',
        published_at: null,
        // 3: a mix of the three, as the API leaves them.
        visibility: VISIBILITIES[op.visibility === 3 ? i % 3 : op.visibility],
        views: 0,
        metadata: '{}',
        file_id: fileId,
        stream_id: streams[op.stream],
        created_at: at,
        updated_at: at,
      }))
      await db.transaction((trx) => db.batchInsert('resources', rows, 500).transacting(trx))
    } else if (op.kind === 'delete') {
      await db('resources').whereRaw('id % ? = 0 and id >= ?', [op.every, op.from]).delete()
    } else if (op.kind === 'hide') {
      await db('resources').whereRaw('id % ? = 1', [op.every]).update({ visibility: VISIBILITIES[op.visibility] })
    } else {
      await db('resources').whereRaw('id % ? = 2', [op.every]).update({ stream_id: streams[op.to] })
    }
    // The views counter, which every play bumps, must not move anything.
    await db('resources').whereRaw('id % 7 = 0').increment('views', 1)
  }

  async function total(): Promise<number> {
    const [row] = (await knex()('resources').count({ n: '*' })) as { n: number | string }[]
    return Number(row!.n)
  }

  /** What a plain scan answers. */
  async function plain(streamId: number, withHidden: boolean, offset?: number): Promise<number[] | number> {
    const query = knex()('resources').where({ stream_id: streamId })
    if (!withHidden) query.andWhere({ visibility: 'visible' })
    if (offset === undefined) {
      const [row] = (await query.clone().count({ n: '*' })) as { n: number | string }[]
      return Number(row!.n)
    }
    const rows = (await query.orderBy('id').limit(50).offset(offset).select('id')) as { id: number }[]
    return rows.map((row) => Number(row.id))
  }

  async function expectSame(): Promise<void> {
    const reader = app.kernel.services.reader
    for (const streamId of streams) {
      for (const withHidden of [true, false]) {
        const filter: ResourceFilter = { scope: 'all', withHidden }
        const count = await resourceQueries.count(reader, streamId, filter)
        expect(count, `count of stream ${streamId}, withHidden ${withHidden}`).toBe(await plain(streamId, withHidden))
        const offsets = new Set([0, 1023, 1024, 1025, 2047, 2048, count - 50, count - 1, count, Math.floor(count / 2)])
        for (const offset of [...offsets].filter((o) => o >= 0)) {
          const page = (await resourceQueries.page(reader, streamId, filter, offset, 50)).map((r) => r.id)
          expect(page, `page at ${offset} of stream ${streamId}, withHidden ${withHidden}`).toEqual(
            await plain(streamId, withHidden, offset),
          )
          // The page with its count in one statement (the lists' read) answers both the same.
          const counted = await resourceQueries.counted(reader, streamId, filter, offset, 50)
          expect({ total: counted.total, ids: counted.items.map((r) => r.id) }).toEqual({ total: count, ids: page })
        }
      }
      // Scopes (granted ids): a few, and more than one statement binds twice (ids that exist nowhere fill it).
      const ids = ((await knex()('resources').where({ stream_id: streamId }).select('id')) as { id: number }[]).map(
        (row) => Number(row.id),
      )
      const padding = Array.from({ length: 4001 }, (_, i) => -1 - i)
      const scopes = [new Set(ids.filter((_, i) => i % 3 === 0)), new Set([...ids, ...padding])]
      for (const scope of scopes) {
        for (const offset of [0, 7]) {
          const filter: ResourceFilter = { scope, withHidden: true }
          const counted = await resourceQueries.counted(reader, streamId, filter, offset, 50)
          expect(counted).toEqual({
            total: await resourceQueries.count(reader, streamId, filter),
            items: await resourceQueries.page(reader, streamId, filter, offset, 50),
          })
        }
      }
    }
  }

  it('equal a plain count and a plain offset page after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 6 }), async (ops) => {
        for (const op of ops) await apply(op)
        await expectSame()
      }),
      // The first run spans three buckets whatever the random runs make (they may insert little): the seek path
      // is always reached.
      { numRuns: 12, examples: [[[{ kind: 'insert', stream: 0, count: 2600, visibility: 3 }]]] },
    )
    // The property reached the seek path: some stream spans several buckets.
    const [row] = (await knex()('resource_buckets').where('bucket', '>', 1).count({ n: '*' })) as { n: number }[]
    expect(Number(row!.n)).toBeGreaterThan(0)
  }, 120_000)

  it('a deleted stream takes its buckets with it; the resources of the other keep their counts', async () => {
    const res = await app.client.delete(
      `/stream/${(await knex()('streams').where({ id: streams[1] }).first('slug')).slug}`,
    )
    expect(res.status, res.body).toBe(204)
    expect(await knex()('resource_buckets').where({ stream_id: streams[1] }).count({ n: '*' })).toEqual([
      { n: TEST_PG_URL ? '0' : 0 },
    ])
    const reader = app.kernel.services.reader
    expect(await resourceQueries.count(reader, streams[0], { scope: 'all', withHidden: true })).toBe(
      await plain(streams[0], true),
    )
  })
})
