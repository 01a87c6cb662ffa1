import { type Server as HttpServer, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { freshDatabase } from '../../helpers/database.js'
import { DigestClient } from '../../helpers/digest-client.js'
import { freePort } from '../../helpers/redis-server.js'
import { type Running, cliJson, removeDir, start, tempDir } from '../../e2e/harness.js'

/**
 * A new installation as an operator makes one: `mediactl serve --init` in an empty directory, on the suite's database
 * (SQLite, or a fresh PostgreSQL database with MEDIACTL_TEST_DATABASE_URL), its public URL the address it listens on.
 * What it printed (the administrator's API key and one-time sign-in link) is what the journeys start from.
 */
export interface Installation {
  url: string
  /** The sign-in link `serve --init` printed for the administrator. */
  link: string
  /** The administrator, through Digest with the printed API key. */
  admin: DigestClient
  /** `mediactl <args> --json` against this installation. */
  cli<T = Record<string, unknown>>(args: string[]): Promise<T>
  close(): Promise<void>
}

export async function newInstallation(): Promise<Installation> {
  const dir = tempDir('mediactl-journey-')
  const database = await freshDatabase()
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const env: Record<string, string> = { MEDIACTL_BASE_URL: url }
  if (database.url) env.MEDIACTL_DATABASE_URL = database.url
  let server: Running | undefined
  try {
    server = await start(
      ['serve', '--init', '--host', '127.0.0.1', '--port', String(port)],
      { cwd: dir, env },
      'stop with Ctrl-C',
    )
    const out = server.stdout()
    const link = /^Console sign-in link \(once, until [^)]+\): (\S+)$/m.exec(out)?.[1]
    const key = /^API key \(shown once, keep it\): (\S+)$/m.exec(out)?.[1]
    const username = /^Installation administrator: (\S+)$/m.exec(out)?.[1]
    if (!link || !key || !username) throw new Error(`serve --init printed no administrator:\n${out}`)
    const running = server
    return {
      url,
      link,
      admin: new DigestClient(url, username, key),
      cli: (args) => cliJson(args, { cwd: dir, env }),
      async close() {
        await running.stop()
        await database.drop()
        removeDir(dir)
      },
    }
  } catch (error) {
    await server?.stop()
    await database.drop()
    removeDir(dir)
    throw error
  }
}

/** Another site: a page on 127.0.0.2 (another origin than the appliance's 127.0.0.1) holding `body`. */
export async function otherSite(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title></head>` +
        `<body><main><h1>A course page</h1>${body}</main></body></html>`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.2:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** How the journey's person works the page: with a mouse, or with the keyboard only. */
export type Hands = 'mouse' | 'keyboard'

/**
 * Reaches `target` as its person would: a click, or Tab presses until it has the focus (as a keyboard user moves
 * through the page; Shift+Tab would find the same), then Enter (a button, a link) or Space (a checkbox).
 */
export async function activate(page: Page, target: Locator, hands: Hands, key: 'Enter' | 'Space' = 'Enter') {
  if (hands === 'mouse') return target.click()
  await focus(page, target)
  await page.keyboard.press(key)
}

/** Moves the focus to `target` with Tab presses only (at most 150: a page a keyboard user can still get through). */
export async function focus(page: Page, target: Locator): Promise<void> {
  await target.waitFor()
  for (let presses = 0; presses < 150; presses++) {
    const focused = await target.evaluate(
      (element) =>
        element === (element as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
    )
    if (focused) return
    await page.keyboard.press('Tab')
  }
  expect.fail(`150 Tab presses did not reach ${target.toString()}`)
}

/** Types into a field reached by Tab (keyboard) or a click (mouse). */
export async function fill(page: Page, field: Locator, value: string, hands: Hands): Promise<void> {
  if (hands === 'mouse') return field.fill(value)
  await focus(page, field)
  await page.keyboard.type(value)
}

/** Picks an option of a select reached by Tab (the keyboard changes it too) or a click. */
export async function choose(page: Page, select: Locator, label: string, hands: Hands): Promise<void> {
  if (hands === 'keyboard') await focus(page, select)
  await select.selectOption({ label })
}
