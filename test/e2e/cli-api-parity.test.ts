import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDatabase } from '../helpers/database.js'
import { DigestClient, type Response } from '../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../helpers/xml.js'
import { type CliResult, type Server, cli, cliJson, removeDir, serve, tempDir } from './harness.js'

// The CLI's commands are the plugins' own, calling the services the routes call: the same inputs are refused by
// both, naming the same fields with the same messages (the API's 412, the CLI's UserError with --json).

let dir: string
let env: Record<string, string>
let drop: () => Promise<void>
let server: Server
let api: DigestClient

const opts = () => ({ cwd: dir, env })

/** The fields a 412 answer names, with their messages. */
function apiRefusal(res: Response): Record<string, string> {
  expect(res.status, res.body).toBe(412)
  const error = parseXml(res.body).error as XmlObject
  return Object.fromEntries(list<XmlObject>(error.field).map((field) => [String(field['@name']), text(field)]))
}

/** The fields `mediactl <args> --json` refuses: exit code 1, no stack, `{error, fields}` on stdout. */
async function cliRefusal(args: string[]): Promise<Record<string, string>> {
  const result: CliResult = await cli([...args, '--json'], opts())
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
  const answer = JSON.parse(result.stdout) as { error: string; fields: Record<string, string> }
  expect(answer.error).toBeTruthy()
  return answer.fields
}

beforeAll(async () => {
  dir = tempDir()
  const database = await freshDatabase()
  drop = database.drop
  env = database.url ? { MEDIACTL_DATABASE_URL: database.url } : {}
  const init = await cliJson<{ username: string; api_key: string }>(
    ['init', '--admin-email', 'admin@example.org'],
    opts(),
  )
  server = await serve([], opts())
  api = new DigestClient(server.url, init.username, init.api_key)
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await drop?.()
  removeDir(dir)
})

describe('the CLI and the API refuse the same inputs, naming the same fields', () => {
  it.each([
    { case: 'a URL that is none', url: 'not a url', events: 'file.uploaded', fields: ['url'] },
    { case: 'a private address', url: 'https://10.1.2.3/hook', events: 'file.uploaded', fields: ['url'] },
    { case: 'an unknown event', url: 'https://93.184.216.34/hook', events: 'file.upload', fields: ['events'] },
    { case: 'both', url: 'http://127.0.0.1/hook', events: 'nope', fields: ['events', 'url'] },
  ])('webhooks create: $case', async ({ url, events, fields }) => {
    const [byApi, byCli] = await Promise.all([
      api.post('/platform/default/webhooks', { form: { url, events } }).then(apiRefusal),
      cliRefusal(['webhooks', 'create', '--platform', 'default', '--url', url, '--events', events]),
    ])
    expect(Object.keys(byApi).sort()).toEqual(fields)
    expect(byCli).toEqual(byApi)
  })

  it.each([
    { case: 'a bad e-mail', username: 'carol', email: 'nope', fields: ['email'] },
    { case: 'a bad username', username: 'bad name', email: 'bad@example.org', fields: ['username'] },
    { case: 'both', username: '-x', email: 'x@', fields: ['email', 'username'] },
  ])('user create: $case', async ({ username, email, fields }) => {
    const [byApi, byCli] = await Promise.all([
      api
        .post('/platform/default/users', { form: { username, email, password: 'secret', profile: 'default-viewer' } })
        .then(apiRefusal),
      cliRefusal(['user', 'create', '--platform', 'default', '--username', username, '--email', email]),
    ])
    expect(Object.keys(byApi).sort()).toEqual(fields)
    expect(byCli).toEqual(byApi)
  })

  it.each<{ case: string; flag: string; field: Record<string, string> }>([
    { case: 'a negative max_users', flag: '--max-users=-1', field: { max_users: '-1' } },
    { case: 'a max_users past 32 bits', flag: '--max-users=3000000000', field: { max_users: '3000000000' } },
    { case: 'a negative max_space', flag: '--max-space=-5', field: { max_space: '-5' } },
  ])('platform create and update: $case', async ({ flag, field }) => {
    const [created, createdByCli, updated, updatedByCli] = await Promise.all([
      api.post('/platforms', { form: { name: 'Quota', max_users: '0', max_space: '0', ...field } }).then(apiRefusal),
      cliRefusal(['platform', 'create', '--name', 'Quota', flag]),
      api.put('/platform/default', { form: field }).then(apiRefusal),
      cliRefusal(['platform', 'update', 'default', flag]),
    ])
    expect(Object.keys(created)).toEqual(Object.keys(field))
    expect(createdByCli).toEqual(created)
    expect(updated).toEqual(created)
    expect(updatedByCli).toEqual(updated)
  })

  it('refused inputs changed nothing', async () => {
    const webhooks = await cliJson<{ webhooks: unknown[] }>(['webhooks', 'list', '--platform', 'default'], opts())
    expect(webhooks.webhooks).toEqual([])
    const platforms = parseXml((await api.get('/platforms')).body).platforms as XmlObject
    expect(list<XmlObject>(platforms.platform).map((p) => String(p['@href']))).toEqual([
      `${server.publicUrl}/platform/default`,
    ])
  })
})

describe('a command of a disabled plugin', () => {
  it('says the plugin is disabled and how to enable it, exit code 1, no stack', async () => {
    const result = await cli(['webhooks', 'list', '--platform', 'default'], {
      cwd: dir,
      env: { ...env, MEDIACTL_PLUGINS__DISABLE: 'webhooks' },
    })
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'mediactl: the webhooks plugin is not enabled: enable it (plugins.enable, MEDIACTL_PLUGINS__ENABLE=webhooks; ' +
        'or take it out of plugins.disable) to use "mediactl webhooks list"\n',
    })
  })
})
