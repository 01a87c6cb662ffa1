import type { Knex } from '@mikro-orm/knex'
import { columns, defineMigration } from '../../../src/kernel/index.js'

/**
 * How many resources each stream holds per visibility and per bucket of 1,024 ids, kept by
 * triggers on `resources`: a stream's count is a sum of a few rows instead of a scan of its
 * index, and a deep page (`Range: entities=999950-999999`, an offset) finds its first bucket
 * from the running sum and seeks there instead of walking every entry before it
 * (resource.queries.ts; measured in docs/benchmarks.md). Triggers, not the application: the
 * cascades, the benchmark's bulk inserts and `psql` are counted too.
 */
const BUCKETS = 'resource_buckets'

const isPostgres = (knex: Knex): boolean => (knex.client as { dialect?: string }).dialect === 'postgresql'

/** PostgreSQL: statement-level for inserts and deletes (one upsert per bucket for a batch), row-level for moves. */
const POSTGRES_TRIGGERS = [
  `create function resources_buckets_add() returns trigger language plpgsql as $$
   begin
     insert into ${BUCKETS} as b (stream_id, visibility, bucket, n)
       select stream_id, visibility, id >> 10, count(*) from new_rows group by 1, 2, 3 order by 1, 2, 3
       on conflict (stream_id, visibility, bucket) do update set n = b.n + excluded.n;
     return null;
   end $$`,
  `create function resources_buckets_remove() returns trigger language plpgsql as $$
   begin
     update ${BUCKETS} b set n = b.n - o.n
       from (select stream_id, visibility, id >> 10 as bucket, count(*) as n from old_rows group by 1, 2, 3) o
       where b.stream_id = o.stream_id and b.visibility = o.visibility and b.bucket = o.bucket;
     return null;
   end $$`,
  `create function resources_buckets_move() returns trigger language plpgsql as $$
   begin
     update ${BUCKETS} set n = n - 1
       where stream_id = old.stream_id and visibility = old.visibility and bucket = old.id >> 10;
     insert into ${BUCKETS} as b (stream_id, visibility, bucket, n) values (new.stream_id, new.visibility, new.id >> 10, 1)
       on conflict (stream_id, visibility, bucket) do update set n = b.n + 1;
     return null;
   end $$`,
  `create trigger resources_buckets_insert after insert on resources referencing new table as new_rows
   for each statement execute function resources_buckets_add()`,
  `create trigger resources_buckets_delete after delete on resources referencing old table as old_rows
   for each statement execute function resources_buckets_remove()`,
  // A column list and a condition: the views counter (updated at every play) fires nothing.
  `create trigger resources_buckets_update after update of stream_id, visibility on resources for each row
   when (old.stream_id is distinct from new.stream_id or old.visibility is distinct from new.visibility)
   execute function resources_buckets_move()`,
]

/** SQLite: row-level only (no transition tables); its writes are in-process, a row costs microseconds. */
const SQLITE_ADD = (row: string) =>
  `insert into ${BUCKETS} (stream_id, visibility, bucket, n) values (${row}.stream_id, ${row}.visibility, ${row}.id >> 10, 1)
   on conflict (stream_id, visibility, bucket) do update set n = n + 1;`
const SQLITE_REMOVE = (row: string) =>
  `update ${BUCKETS} set n = n - 1
   where stream_id = ${row}.stream_id and visibility = ${row}.visibility and bucket = ${row}.id >> 10;`
const SQLITE_TRIGGERS = [
  `create trigger resources_buckets_insert after insert on resources begin ${SQLITE_ADD('new')} end`,
  `create trigger resources_buckets_delete after delete on resources begin ${SQLITE_REMOVE('old')} end`,
  `create trigger resources_buckets_update after update of stream_id, visibility on resources
   when old.stream_id is not new.stream_id or old.visibility is not new.visibility
   begin ${SQLITE_REMOVE('old')} ${SQLITE_ADD('new')} end`,
]

export default defineMigration({
  name: '20270128-resources-buckets',
  async up(knex) {
    await knex.schema.createTable(BUCKETS, (t) => {
      columns.reference(t, 'stream', 'streams')
      t.string('visibility', 16).notNullable()
      t.integer('bucket').notNullable()
      t.integer('n').notNullable()
      t.primary(['stream_id', 'visibility', 'bucket'])
    })
    await knex.raw(
      `insert into ${BUCKETS} (stream_id, visibility, bucket, n)
       select stream_id, visibility, id >> 10, count(*) from resources group by stream_id, visibility, id >> 10`,
    )
    for (const statement of isPostgres(knex) ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await knex.raw(statement)
  },
  async down(knex) {
    const postgres = isPostgres(knex)
    for (const trigger of ['insert', 'delete', 'update']) {
      await knex.raw(`drop trigger if exists resources_buckets_${trigger}${postgres ? ' on resources' : ''}`)
    }
    if (postgres) {
      for (const fn of ['add', 'remove', 'move']) await knex.raw(`drop function if exists resources_buckets_${fn}()`)
    }
    await knex.schema.dropTable(BUCKETS)
  },
})
