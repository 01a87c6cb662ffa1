import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DigestClient } from '../helpers/digest-client.js'
import { list, parseXml, text } from '../helpers/xml.js'
import { type Server, cli, cliJson, removeDir, serve, tempDir } from './harness.js'

/**
 * One instance initialized by `mediactl init` in an empty directory, one `mediactl serve`
 * on a free port, and every command that manages it, checked over real HTTP.
 */

interface InitJson {
  changed: boolean
  steps: string[]
  data_dir: string
  config_file: string
  url: string
  public_key: string
  username?: string
  api_key?: string
  sign_in_link?: string
  platform?: string
}

let dir: string
/** A second instance, initialized in plain text (later broken for doctor). */
let other: string
let init: InitJson
let server: Server
const opts = (): { cwd: string } => ({ cwd: dir })

beforeAll(async () => {
  dir = tempDir()
  init = await cliJson<InitJson>(
    ['init', '--admin-username', 'alice', '--admin-email', 'alice@example.org', '--admin-password', 'pw-alice-1'],
    opts(),
  )
  server = await serve([], opts())
})

afterAll(async () => {
  await server?.stop()
  removeDir(dir)
  if (other) removeDir(other)
})

describe('mediactl init on an empty directory', () => {
  it('prints the administrator and its API key as JSON', () => {
    expect(init).toEqual({
      changed: true,
      steps: [
        `wrote config file ${join(dir, 'mediactl.yaml')}`,
        `created data dir ${join(dir, 'data')}`,
        'generated the server secret',
        'generated the RSA key pair for password checks',
        expect.stringMatching(/^applied \d+ migration\(s\)$/),
        'created the platform "Default" (default)',
        'created the installation administrator "alice"',
      ],
      data_dir: join(dir, 'data'),
      config_file: join(dir, 'mediactl.yaml'),
      url: 'http://localhost:8080',
      public_key: join(dir, 'data', 'keys', 'public.pem'),
      username: 'alice',
      api_key: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      platform: 'default',
      sign_in_link: expect.stringMatching(/^http:\/\/localhost:8080\/console\/link\/[A-Za-z0-9]{43}$/),
    })
  })

  it('creates the config file, the secret, the RSA key pair and the SQLite database', () => {
    const config = readFileSync(join(dir, 'mediactl.yaml'), 'utf8')
    expect(config).toMatch(/^data_dir: "\.\/data"$/m)
    const secret = join(dir, 'data', 'secret')
    expect(readFileSync(secret, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(secret).mode & 0o777).toBe(0o600)
    const privateKey = join(dir, 'data', 'keys', 'private.pem')
    expect(readFileSync(privateKey, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    expect(statSync(privateKey).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'data', 'keys', 'public.pem'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    const db = readFileSync(join(dir, 'data', 'mediactl.sqlite'))
    expect(db.subarray(0, 15).toString('latin1')).toBe('SQLite format 3')
  })

  it('prints the key once in plain text, with a curl line, and progress on stderr', async () => {
    other = tempDir()
    const result = await cli(['init', '--admin-username', 'root', '--admin-email', 'root@example.org'], {
      cwd: other,
    })
    expect(result.code).toBe(0)
    const key = /^API key \(shown once, keep it\): ([A-Za-z0-9]{40})$/m.exec(result.stdout)?.[1]
    expect(key).toBeDefined()
    expect(result.stdout).toContain('Installation administrator: root\n')
    expect(result.stdout).toContain('URL: http://localhost:8080\n')
    expect(result.stdout).toMatch(
      /^Console sign-in link \(once, until [^)]+\): http:\/\/localhost:8080\/console\/link\/[A-Za-z0-9]{43}$/m,
    )
    expect(result.stdout).toContain(`Try: curl --digest -u 'root:${key}' http://localhost:8080/\n`)
    expect(result.stdout.split(key!)).toHaveLength(3) // the key line and the curl line, nowhere else
    expect(result.stderr).toContain('  generated the server secret\n')
    expect(result.stderr).toContain('  created the installation administrator "root"\n')
    expect(result.stderr).not.toContain(key)
  })
})

describe('mediactl serve', () => {
  it('prints the URL it listens on and answers Digest requests made with the printed key', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.publicUrl).toBe(server.url)
    const anonymous = await new DigestClient(server.url, 'alice', 'x').handshake()
    expect(anonymous.realm).toBe('mediactl')

    const client = new DigestClient(server.url, 'alice', init.api_key!)
    const root = await client.get('/')
    expect(root.status).toBe(200)
    expect(parseXml(root.body).services['@href']).toBe(`${server.url}/`)

    const platforms = await client.get('/platforms')
    expect(platforms.status).toBe(200)
    const items = list(parseXml(platforms.body).platforms.platform)
    expect(items.map((p) => text(p.slug))).toEqual(['default'])
    expect(items[0]!['@href']).toBe(`${server.url}/platform/default`)
  })

  it('rejects a wrong key with 401', async () => {
    const res = await new DigestClient(server.url, 'alice', 'A'.repeat(40)).get('/')
    expect(res.status).toBe(401)
  })
})

describe('mediactl init on an initialized instance', () => {
  it('changes nothing, says so, and the first key keeps working', async () => {
    const before = {
      secret: readFileSync(join(dir, 'data', 'secret'), 'utf8'),
      key: readFileSync(join(dir, 'data', 'keys', 'private.pem'), 'utf8'),
      config: readFileSync(join(dir, 'mediactl.yaml'), 'utf8'),
    }
    const plain = await cli(['init', '--admin-username', 'mallory', '--admin-email', 'm@example.org'], opts())
    expect(plain).toMatchObject({ code: 0, stderr: '' })
    expect(plain.stdout).toBe(
      `Already initialized (${join(dir, 'data')}): nothing changed.\n` +
        `Public key for password checks (GET /authentication/public_key): ${join(dir, 'data', 'keys', 'public.pem')}\n`,
    )

    const again = await cliJson<InitJson>(['init'], opts())
    expect(again).toEqual({
      changed: false,
      steps: [],
      data_dir: join(dir, 'data'),
      config_file: join(dir, 'mediactl.yaml'),
      url: 'http://localhost:8080',
      public_key: join(dir, 'data', 'keys', 'public.pem'),
    })
    expect(readFileSync(join(dir, 'data', 'secret'), 'utf8')).toBe(before.secret)
    expect(readFileSync(join(dir, 'data', 'keys', 'private.pem'), 'utf8')).toBe(before.key)
    expect(readFileSync(join(dir, 'mediactl.yaml'), 'utf8')).toBe(before.config)
    expect((await new DigestClient(server.url, 'alice', init.api_key!).get('/')).status).toBe(200)
    expect((await new DigestClient(server.url, 'mallory', init.api_key!).get('/')).status).toBe(401)
  })
})

describe('mediactl doctor on a healthy instance', () => {
  it('passes every check and exits 0', async () => {
    const result = await cli(['doctor'], opts())
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    const marks = lines.filter((l) => !l.startsWith(' ')).map((l) => l.slice(0, 2) + l.slice(2).split(/ {2,}/)[0])
    expect(marks).toEqual([
      '✓ config',
      '✓ node.js',
      // No public URL in a fresh instance: worth a look, not a failure.
      '! base_url',
      expect.stringMatching(/^[✓!] http port$/),
      '✓ data dir',
      '✓ instance',
      '✓ ffmpeg',
      '✓ ffprobe',
      '✓ flavors',
      '✓ database',
      '✓ migrations',
      '✓ shared state',
      '✓ storage',
    ])
    expect(result.stdout).toContain(`sqlite at ${join(dir, 'data', 'mediactl.sqlite')}`)
    expect(result.stdout).toMatch(/✓ migrations +schema up to date \(\d+ migrations applied\)/)
    expect(result.stdout).toMatch(/✓ config +valid; 23 plugins \(queue inline, storage fs, state database\)/)
    expect(result.stdout).toContain(`Node.js ${process.versions.node}`)
    expect(result.stdout).toMatch(/✓ ffmpeg +ffmpeg version \S+ \((PATH|FFMPEG_PATH|bundled npm copy): /)
    // The flavor names clients will see.
    expect(result.stdout).toMatch(/flavors\s+video 1080p \(1920x1080\), 720p .*ladder resolution; audio aac, mp3/)
  })
})

describe('mediactl user create', () => {
  it('prints the new user and its key as JSON; the key authenticates over HTTP', async () => {
    const bob = await cliJson(
      ['user', 'create', '--platform', 'default', '--username', 'bob', '--email', 'bob@example.org'],
      opts(),
    )
    expect(bob).toEqual({
      username: 'bob',
      api_key: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      platform: 'default',
      profile: 'default-viewer',
    })
    const client = new DigestClient(server.url, 'bob', bob.api_key as string)
    expect((await client.get('/')).status).toBe(200)
    expect((await client.get('/platform/default')).status).toBe(200)
    // The least-privileged profile by default: reading, not writing, and no installation administration.
    expect((await client.post('/platform/default/medias', { form: { name: 'Not mine' } })).status).toBe(403)
    expect((await client.get('/platforms')).status).toBe(403)
  })

  it('gives the profile asked for with --profile', async () => {
    const dan = await cliJson(
      [
        'user',
        'create',
        '--platform',
        'default',
        '--username',
        'dan',
        '--email',
        'dan@example.org',
        '--profile',
        'default-administrator',
      ],
      opts(),
    )
    expect(dan.profile).toBe('default-administrator')
    expect((await new DigestClient(server.url, 'dan', dan.api_key as string).get('/platforms')).status).toBe(403)
  })

  it('makes an installation administrator with --admin, printing the key once in plain text', async () => {
    const result = await cli(
      ['user', 'create', '--platform', 'default', '--username', 'carol', '--email', 'carol@example.org', '--admin'],
      opts(),
    )
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^Created user carol on platform default \(profile [a-z0-9-]+\)\.$/)
    const key = /^API key \(shown once, keep it\): ([A-Za-z0-9]{40})$/.exec(lines[1] ?? '')?.[1]
    expect(lines).toHaveLength(2)
    expect((await new DigestClient(server.url, 'carol', key!).get('/platforms')).status).toBe(200)
  })

  it('refuses a duplicate username with exit code 1 and a clear message', async () => {
    const args = ['user', 'create', '--platform', 'default', '--username', 'bob', '--email', 'other@example.org']
    const result = await cli(args, opts())
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: 'mediactl: the username "bob" is already used; choose another one\n',
    })
    const json = await cli([...args, '--json'], opts())
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({
      error: 'the username "bob" is already used; choose another one',
      fields: { username: 'is already used' },
    })
  })

  it('refuses an unknown platform or profile with exit code 1', async () => {
    const platform = await cli(
      ['user', 'create', '--platform', 'nope', '--username', 'dave', '--email', 'dave@example.org'],
      opts(),
    )
    expect(platform.code).toBe(1)
    expect(platform.stderr).toMatch(/^mediactl: no platform "nope": .*mediactl platform create/)
    const profile = await cli(
      ['user', 'create', '--platform', 'default', '--profile', 'nope', '--username', 'dave', '--email', 'd@x.org'],
      opts(),
    )
    expect(profile.code).toBe(1)
    expect(profile.stderr).toMatch(
      /^mediactl: no profile "nope" on platform default; its profiles: default-administrator \(Administrator\), default-publisher \(Publisher\), default-viewer \(Viewer\)/,
    )
    const typo = await cli(
      [
        'user',
        'create',
        '--platform',
        'default',
        '--profile',
        'default-publsher',
        '--username',
        'dave',
        '--email',
        'd@x.org',
      ],
      opts(),
    )
    expect(typo.stderr).toContain(
      'no profile "default-publsher" on platform default (did you mean "default-publisher"?)',
    )
  })

  it('requires --platform, --username and --email', async () => {
    const result = await cli(['user', 'create', '--username', 'erin'], opts())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Missing required flag email')
    expect(result.stderr).toContain('Missing required flag platform')
  })
})

describe('mediactl user key', () => {
  it('rotates the key: the old one gets 401, the new one 200', async () => {
    const created = await cliJson(
      ['user', 'create', '--platform', 'default', '--username', 'frank', '--email', 'frank@example.org'],
      opts(),
    )
    const oldKey = created.api_key as string
    expect((await new DigestClient(server.url, 'frank', oldKey).get('/')).status).toBe(200)

    const rotated = await cliJson(['user', 'key', 'frank'], opts())
    expect(rotated).toEqual({ username: 'frank', api_key: expect.stringMatching(/^[A-Za-z0-9]{40}$/) })
    expect(rotated.api_key).not.toBe(oldKey)
    expect((await new DigestClient(server.url, 'frank', oldKey).get('/')).status).toBe(401)
    expect((await new DigestClient(server.url, 'frank', rotated.api_key as string).get('/')).status).toBe(200)

    const plain = await cli(['user', 'key', 'frank'], opts())
    expect(plain.code).toBe(0)
    const key = /^New API key for frank \(shown once, keep it\): ([A-Za-z0-9]{40})\n$/.exec(plain.stdout)?.[1]
    expect((await new DigestClient(server.url, 'frank', rotated.api_key as string).get('/')).status).toBe(401)
    expect((await new DigestClient(server.url, 'frank', key!).get('/')).status).toBe(200)
  })

  it('refuses an unknown user with exit code 1', async () => {
    const result = await cli(['user', 'key', 'ghost'], opts())
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'mediactl: no user "ghost"\n' })
  })
})

describe('console sign-in links', () => {
  /** Uses a printed link against the running server: the password chosen, the console's session cookie. */
  async function useLink(link: string): Promise<{ status: number; cookie?: string }> {
    const path = new URL(link).pathname
    const password = 'a password long enough'
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams({ password, confirm: password }),
      redirect: 'manual',
    })
    return { status: res.status, cookie: res.headers.get('set-cookie')?.split(';')[0] }
  }

  it("init's link signs the administrator in once", async () => {
    const used = await useLink(init.sign_in_link!)
    expect(used.status).toBe(303)
    expect(used.cookie).toMatch(/^mediactl_session=[A-Za-z0-9]{43}$/)
    const page = await fetch(`${server.url}/console`, { headers: { cookie: used.cookie! }, redirect: 'manual' })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Signed in as alice')
    expect((await useLink(init.sign_in_link!)).status).toBe(410)
  })

  it('mediactl user sign-in-link prints a new link, as text or JSON; an unknown user exits 1', async () => {
    const json = await cliJson(['user', 'sign-in-link', 'alice'], opts())
    expect(json).toEqual({
      username: 'alice',
      url: expect.stringMatching(/^http:\/\/localhost:8080\/console\/link\/[A-Za-z0-9]{43}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    })
    expect(Date.parse(json.expires_at as string) - Date.now()).toBeGreaterThan(23 * 3600 * 1000)
    expect((await useLink(json.url as string)).status).toBe(303)

    const plain = await cli(['user', 'sign-in-link', 'alice'], opts())
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(
      /^Sign-in link for alice \(once, until [^)]+\): http:\/\/localhost:8080\/console\/link\/[A-Za-z0-9]{43}\n$/,
    )

    const ghost = await cli(['user', 'sign-in-link', 'ghost'], opts())
    expect(ghost).toMatchObject({ code: 1, stdout: '' })
    expect(ghost.stderr).toContain('no user "ghost"')
  })
})

describe('mediactl platform create', () => {
  it('creates a platform that GET /platforms lists', async () => {
    const created = await cliJson(
      ['platform', 'create', '--name', 'Campus TV', '--max-users', '50', '--max-space', '1073741824'],
      opts(),
    )
    expect(created).toEqual({
      slug: 'campus-tv',
      name: 'Campus TV',
      max_users: 50,
      max_space: 1073741824,
      timestamps: null,
      url: 'http://localhost:8080/platform/campus-tv',
    })
    const res = await new DigestClient(server.url, 'alice', init.api_key!).get('/platforms')
    expect(res.status).toBe(200)
    const campus = list(parseXml(res.body).platforms.platform).find((p) => text(p.slug) === 'campus-tv')
    expect(campus).toBeDefined()
    expect(campus!['@href']).toBe(`${server.url}/platform/campus-tv`)
    expect(text(campus!.name)).toBe('Campus TV')
    expect(text(campus!.max_users)).toBe('50')
    expect(text(campus!.max_space)).toBe('1073741824')

    // Users can be created on it right away, with its seeded profiles.
    const user = await cliJson(
      ['user', 'create', '--platform', 'campus-tv', '--username', 'gina', '--email', 'gina@example.org'],
      opts(),
    )
    expect(user.profile).toBe('campus-tv-viewer')
  })
})

describe('mediactl platform update', () => {
  it('sets the date-time dialect of a platform, and back to the default', async () => {
    await cliJson(['platform', 'create', '--name', 'Old LMS', '--timestamps', 'unix'], opts())
    const client = new DigestClient(server.url, 'alice', init.api_key!)
    const dialect = async (): Promise<string> =>
      text(parseXml((await client.get('/platform/old-lms')).body).platform.timestamps)
    expect(await dialect()).toBe('unix')
    const updated = await cliJson(
      ['platform', 'update', 'old-lms', '--timestamps', 'default', '--max-users', '7'],
      opts(),
    )
    expect(updated).toMatchObject({ slug: 'old-lms', timestamps: null, max_users: 7 })
    expect(await dialect()).toBe('')
    expect((await cliJson(['platform', 'update', 'old-lms', '--timestamps', 'iso8601'], opts())).timestamps).toBe(
      'iso8601',
    )
  })

  it('exits 1 naming what is wrong: an unknown platform, nothing to change, a wrong dialect', async () => {
    const unknown = await cli(['platform', 'update', 'ghost', '--timestamps', 'unix'], opts())
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no platform "ghost"')])
    const nothing = await cli(['platform', 'update', 'default'], opts())
    expect([nothing.code, nothing.stderr]).toEqual([1, expect.stringContaining('Nothing to change')])
    const wrong = await cli(['platform', 'update', 'default', '--timestamps', 'epoch'], opts())
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toMatch(/iso8601, unix, default/)
  })
})

describe('MEDIACTL_BASE_URL', () => {
  it('makes every href use the public base URL', async () => {
    const base = 'https://media.example.test'
    const proxied = await serve([], { cwd: dir, env: { MEDIACTL_BASE_URL: base } })
    try {
      expect(proxied.publicUrl).toBe(base)
      const client = new DigestClient(proxied.url, 'alice', init.api_key!)
      const root = await client.get('/')
      expect(root.status).toBe(200)
      expect(parseXml(root.body).services['@href']).toBe(`${base}/`)
      const res = await client.get('/platforms')
      const xml = parseXml(res.body).platforms
      expect(xml['@href']).toBe(`${base}/platforms`)
      expect(list(xml.platform)[0]!['@href']).toBe(`${base}/platform/default`)
      expect(res.body).not.toContain('127.0.0.1')

      const created = await cliJson(['platform', 'create', '--name', 'Proxied'], {
        cwd: dir,
        env: { MEDIACTL_BASE_URL: base },
      })
      expect(created.url).toBe(`${base}/platform/proxied`)
    } finally {
      expect((await proxied.stop()).code).toBe(0)
    }
  })
})

describe('mediactl doctor on a broken instance', () => {
  it('fails with exit code 1 and a fix line when the data dir has no secret', async () => {
    removeDir(join(other, 'data', 'secret'))
    expect(existsSync(join(other, 'data', 'secret'))).toBe(false)
    const result = await cli(['doctor'], { cwd: other })
    expect(result.code).toBe(1)
    const lines = result.stdout.split('\n')
    const failed = lines.findIndex((l) => l.startsWith('✗ instance'))
    expect(lines[failed]).toMatch(/^✗ instance +server secret or RSA key pair missing$/)
    expect(lines[failed + 1]?.trim()).toMatch(/^→ run "mediactl init"/)
    expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(1)

    const json = await cli(['doctor', '--json'], { cwd: other })
    expect(json.code).toBe(1)
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: { name: string; ok: boolean; fix?: string }[] }
    expect(report.ok).toBe(false)
    expect(report.checks.find((c) => c.name === 'instance')).toMatchObject({
      ok: false,
      status: 'fail',
      fix: expect.stringMatching(/^run "mediactl init"/),
    })

    // serve cannot authenticate anyone without the secret: it refuses and says how to fix it.
    const refused = await cli(['serve', '--port', '0', '--host', '127.0.0.1'], { cwd: other })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('no server secret: run "mediactl init"')
  })
})
