import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedWebhook, WebhookSummary } from '../../plugins/webhooks/index.js'
import { type CliResult, cli, cliJson, removeDir, tempDir } from './harness.js'

/**
 * `mediactl webhooks list`, `create` and `delete` on one initialized instance. Each CLI call is a
 * process booting a kernel (a second or two): the calls that do not depend on each other run
 * together, and what the CLI does not show (the stored secret) is read in the instance's SQLite file.
 * A second platform, `other`, has a webhook too, which the first one's commands never see.
 */

let dir: string
const opts = (env?: Record<string, string>) => ({ cwd: dir, env })

/** A public address given literally: resolving it asks no resolver, and nothing is ever dialled. */
const PUBLIC_URL = 'https://93.184.216.34/hooks/mediactl'
/** The id of the webhook of the platform `other`. */
let foreignId: string

interface WebhookRow {
  public_id: string
  platform_id: number
  url: string
  events: string
  description: string
  enabled: number
  secret: string
}

/** Runs `work` on the instance's SQLite file directly: no kernel to boot for a read or a one-line change. */
function withDatabase<T>(work: (db: Database.Database) => T, readonly = true): T {
  const db = new Database(join(dir, 'data', 'mediactl.sqlite'), { readonly, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    return work(db)
  } finally {
    db.close()
  }
}

const rows = (): WebhookRow[] =>
  withDatabase((db) => db.prepare('select * from webhooks order by id').all() as WebhookRow[])

/** A refusal: exit code 1, no stack, the message on stderr (text) or as `{ error }` on stdout (--json). */
function refusal(result: CliResult, json = false): string {
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
  if (json) return (JSON.parse(result.stdout) as { error: string }).error
  expect(result.stdout).toBe('')
  return /^mediactl: (.*)\n$/.exec(result.stderr)?.[1] ?? result.stderr
}

beforeAll(async () => {
  dir = tempDir()
  await cliJson(['init', '--admin-email', 'admin@example.org'], opts())
})

afterAll(() => removeDir(dir))

describe('mediactl webhooks', { timeout: 120_000 }, () => {
  it('lists none, and refuses what the API refuses, saying what to do', async () => {
    const [none, bad, ghost] = await Promise.all([
      cli(['webhooks', 'list', '--platform', 'default'], opts()),
      cli(
        ['webhooks', 'create', '--platform', 'default', '--url', 'https://127.0.0.1/x', '--events', 'file.upload'],
        opts(),
      ),
      cli(['webhooks', 'create', '--platform', 'ghost', '--url', PUBLIC_URL, '--events', '*', '--json'], opts()),
      // For the tests below: a platform whose webhooks are none of the first one's.
      cliJson(['platform', 'create', '--name', 'Other'], opts()),
    ])
    expect(none).toMatchObject({ code: 0, stdout: 'No webhooks on platform default.\n', stderr: '' })
    // Every failing flag on one line, with the API's messages (the events' names, the address rule).
    expect(refusal(bad)).toBe(
      '--events has unknown event "file.upload": use * or some of file.uploaded, file.encoding_progress, ' +
        'file.encoded, file.encoding_failed, file.deleted, resource.created, resource.updated, resource.deleted, ' +
        'user.created, webhook.test; --url resolves to 127.0.0.1, a loopback address: webhooks go to public ' +
        'addresses only (webhooks.allow_private_networks allows others)',
    )
    expect(refusal(ghost, true)).toBe(
      'no platform "ghost": list them with GET /platforms or create one with "mediactl platform create"',
    )
    expect(rows()).toEqual([])
  })

  let created: CreatedWebhook
  let privateId: string

  it('creates a webhook and shows its secret once (--json, and text under allow_private_networks)', async () => {
    const [json, text, foreign] = await Promise.all([
      cliJson<CreatedWebhook>(
        ['webhooks', 'create', '--platform', 'default', '--url', PUBLIC_URL, '--events', 'file.uploaded, file.encoded'],
        opts(),
      ),
      // Repeated --events; a loopback http URL, which this instance's configuration allows.
      cli(
        [
          'webhooks',
          'create',
          '--platform',
          'default',
          '--url',
          'http://127.0.0.1:9/in-house',
          '--events',
          'resource.created',
          '--events',
          'file.deleted',
          '--description',
          'In-house index',
          '--disabled',
        ],
        opts({ MEDIACTL_WEBHOOKS__ALLOW_PRIVATE_NETWORKS: 'true' }),
      ),
      cliJson<CreatedWebhook>(
        ['webhooks', 'create', '--platform', 'other', '--url', PUBLIC_URL, '--events', '*'],
        opts(),
      ),
    ])
    foreignId = foreign.id
    created = json
    expect(Object.keys(created).sort()).toEqual(['events', 'href', 'id', 'secret', 'url'])
    expect(created).toMatchObject({
      url: PUBLIC_URL,
      events: ['file.uploaded', 'file.encoded'],
      href: `http://localhost:8080/webhook/${created.id}`,
    })
    expect(created.id).toMatch(/^[A-Za-z0-9]{16}$/)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)

    expect(text.code, text.stderr).toBe(0)
    const lines = text.stdout.trimEnd().split('\n')
    const id =
      /^Created webhook ([A-Za-z0-9]{16}) on platform default: http:\/\/127\.0\.0\.1:9\/in-house \(resource\.created, file\.deleted\)$/.exec(
        lines[0]!,
      )
    expect(id, text.stdout).not.toBeNull()
    privateId = id![1]!
    expect(lines[1]).toMatch(/^Signing secret \(shown only now, keep it\): whsec_[A-Za-z0-9+/]+=*$/)
    expect(lines).toHaveLength(2)

    const stored = new Map(rows().map((r) => [r.public_id, r]))
    expect(stored.get(created.id)).toMatchObject({
      url: PUBLIC_URL,
      events: 'file.uploaded,file.encoded',
      description: '',
      secret: created.secret,
    })
    expect(Boolean(stored.get(created.id)!.enabled)).toBe(true)
    expect(stored.get(privateId)).toMatchObject({
      events: 'resource.created,file.deleted',
      description: 'In-house index',
      secret: lines[1]!.split(': ')[1],
    })
    expect(Boolean(stored.get(privateId)!.enabled)).toBe(false)
    expect(stored.get(foreignId)).toMatchObject({ events: '*', secret: foreign.secret })
    expect(stored.get(foreignId)!.platform_id).not.toBe(stored.get(created.id)!.platform_id)
  })

  it("lists the platform's webhooks without their secrets (--json, and a table)", async () => {
    const reason = `disabled on 2027-02-03T10:00:00.000Z: deliveries failed since 2027-01-29T09:58:12.000Z without one succeeding`
    withDatabase(
      (db) => db.prepare('update webhooks set disabled_reason = ? where public_id = ?').run(reason, privateId),
      false,
    )
    const [json, table] = await Promise.all([
      cliJson<{ webhooks: WebhookSummary[] }>(['webhooks', 'list', '--platform', 'default'], opts()),
      cli(['webhooks', 'list', '--platform', 'default'], opts()),
    ])
    expect(JSON.stringify(json)).not.toContain('whsec_')
    // Oldest first: the two were created at the same time, in either order.
    const ids = json.webhooks.map((w) => w.id)
    expect([...ids].sort()).toEqual([created.id, privateId].sort())
    const first = json.webhooks.find((w) => w.id === created.id)
    const second = json.webhooks.find((w) => w.id === privateId)
    expect(Object.keys(first!).sort()).toEqual([
      'created_at',
      'description',
      'disabled_reason',
      'enabled',
      'events',
      'failing_since',
      'href',
      'id',
      'url',
    ])
    expect(first).toMatchObject({
      url: PUBLIC_URL,
      events: ['file.uploaded', 'file.encoded'],
      description: '',
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      href: created.href,
    })
    expect(new Date(first!.created_at).toISOString()).toBe(first!.created_at)
    expect(second).toMatchObject({ enabled: false, disabled_reason: reason, description: 'In-house index' })

    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).not.toContain('whsec_')
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^ID +URL +EVENTS +ENABLED +DISABLED REASON$/)
    // In the order of --json.
    expect(lines[1 + ids.indexOf(created.id)]).toMatch(
      new RegExp(`^${created.id} +${PUBLIC_URL} +file\\.uploaded,file\\.encoded +yes$`),
    )
    const disabled = lines[1 + ids.indexOf(privateId)]
    expect(disabled).toMatch(
      new RegExp(`^${privateId} +http://127\\.0\\.0\\.1:9/in-house +resource\\.created,file\\.deleted +no +`),
    )
    // The reason is cut to its first 50 characters; --json has it whole.
    expect(disabled).toMatch(/ disabled on 2027-02-03T10:00:00\.000Z: deliveries …$/)
  })

  it("deletes a webhook of the platform; an unknown one or another platform's is refused", async () => {
    const [foreign, unknown, deleted] = await Promise.all([
      cli(['webhooks', 'delete', '--platform', 'default', foreignId], opts()),
      cli(['webhooks', 'delete', '--platform', 'default', 'NoSuchWebhook123', '--json'], opts()),
      cli(['webhooks', 'delete', '--platform', 'default', created.id], opts()),
    ])
    const hint = 'list them with "mediactl webhooks list --platform default"'
    expect(refusal(foreign)).toBe(`no webhook ${foreignId} on platform default: ${hint}`)
    expect(refusal(unknown, true)).toBe(`no webhook NoSuchWebhook123 on platform default: ${hint}`)
    expect(deleted).toMatchObject({
      code: 0,
      stdout: `Deleted webhook ${created.id} of platform default (${PUBLIC_URL}).\n`,
      stderr: '',
    })
    expect(
      rows()
        .map((r) => r.public_id)
        .sort(),
    ).toEqual([foreignId, privateId].sort())
  })
})
