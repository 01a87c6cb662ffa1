import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { makeMedia, startEncodingApp, uploadMedia } from '../encoding/encoding.helpers.js'
import { userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { jobOf, oneJob } from '../job-admin/jobs.helpers.js'
import { ConsoleChromium, HAS_CHROMIUM, SHOTS, accessible } from './console.browser-helpers.js'

/**
 * The console's jobs section in headless Chromium, for a platform administrator: the dashboard's counts, a failed job
 * retried and seen queued, a waiting one cancelled, each checked through the API; names and errors holding markup
 * shown as text; pages of 50. A Publisher is offered neither the section nor the card, and the API refuses them. The
 * error state, French, the keyboard, 320 px; axe on every state. Nothing consumes the jobs: they stay as the tests
 * leave them.
 */

const HOSTILE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">]]>`
const ERROR = `ffmpeg exited with code 1: <b onmouseover="window.__pwned=3">bad</b> ]]> data`

describe.skipIf(!HAS_CHROMIUM)('the jobs section in Chromium', { timeout: 90_000 }, () => {
  let app: TestApp
  let padmin: DigestClient
  let publisher: DigestClient
  /** A job failed on purpose (its file renamed with markup), and one waiting. */
  let failed: string
  let waiting: string
  let waitingFile: string
  const chromium = new ConsoleChromium()

  /** Marks a job failed with ERROR, as a last failed run leaves it (the jobs tests write states this way too). */
  async function failJob(id: string): Promise<void> {
    await app.kernel.jobs.store
      .table()
      .where({ id: Number(id) })
      .update({ state: 'failed', attempts: 3, last_error: ERROR, live_key: null })
  }

  /** Writes `count` succeeded jobs of a file straight into the table: old work, as a busy platform keeps it. */
  async function succeededJobs(slug: string, count: number): Promise<void> {
    const { store } = app.kernel.jobs
    const now = store.at(new Date())
    const row = { type: 'encoding.encode', payload: '{}', state: 'succeeded', attempts: 1, max_attempts: 3 }
    const times = { progress: 100, subject: slug, run_after: now, created_at: now, updated_at: now }
    await store.table().insert(Array.from({ length: count }, () => ({ ...row, ...times })))
  }

  beforeAll(async () => {
    app = await startEncodingApp({ jobs: false })
    padmin = await userWithProfile(app, 'padmin', 'default-administrator')
    publisher = await userWithProfile(app, 'publisher', 'default-publisher')
    const png = await makeMedia('png', { size: '32x32' })
    const first = await uploadMedia(app.client, png, 'first.png')
    expect((await app.client.put(`/file/${first}`, { form: { name: HOSTILE } })).status).toBe(200)
    failed = await jobOf(app.client, first)
    await failJob(failed)
    waitingFile = await uploadMedia(app.client, png, 'second.png')
    waiting = await jobOf(app.client, waitingFile)
    await chromium.launch(app)
  }, 120_000)

  afterAll(() => chromium.close(app))

  afterEach(() => {
    // The refusals the tests provoke (a Publisher's requests, a failing list) are the only console errors.
    expect(chromium.problemsBut(/status of (403|500)\b/)).toEqual([])
  })

  it('counts the jobs on the dashboard; an administrator retries a failed job and sees it queued', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console`)
    const card = page.getByRole('region', { name: 'Jobs' })
    await card.getByRole('link', { name: 'Failed: 1' }).waitFor()
    expect(await card.getByRole('link', { name: 'Waiting: 1' }).count()).toBe(1)
    expect(await card.getByRole('link', { name: 'Running: 0' }).count()).toBe(1)
    await accessible(page, 'the dashboard with its jobs card')

    await card.getByRole('link', { name: 'Failed: 1' }).click()
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor()
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed')
    const sections = page.getByRole('navigation', { name: 'Console sections' })
    expect(await sections.getByRole('link', { name: 'Jobs' }).getAttribute('aria-current')).toBe('page')
    const rows = page.getByRole('table', { name: 'Jobs, newest first' }).getByRole('row')
    await rows.nth(1).waitFor()
    expect(await rows.count()).toBe(2)
    const row = rows.nth(1)
    expect(await row.getByRole('rowheader').textContent()).toBe(HOSTILE)
    expect(await row.getByRole('link', { name: HOSTILE }).getAttribute('href')).toMatch(/\/console\/file\?slug=/)
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'Encoding',
      'Failed',
      '3 of 3',
      '0 %',
      ERROR,
      'Retry',
    ])
    expect(await row.getByRole('button', { name: /^Cancel/ }).count()).toBe(0)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await accessible(page, 'the failed jobs')
    await page.screenshot({ path: join(SHOTS, 'jobs.png'), fullPage: true })

    await row.getByRole('button', { name: `Retry job ${failed} (${HOSTILE})` }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Job ${failed} (${HOSTILE}) is queued again.` })
      .waitFor()
    await page.getByText('No job in this state.').waitFor()
    expect(oneJob(await padmin.get(`/job/${failed}`))).toMatchObject({ state: 'waiting', attempts: '0/3' })
    await accessible(page, 'a job retried')

    await page.getByRole('combobox', { name: 'State' }).selectOption({ label: 'Waiting' })
    await page.getByRole('button', { name: 'Show', exact: true }).click()
    await page.getByText('Jobs 1 to 2 of 2').waitFor()
    const states = await page.getByRole('table').getByRole('row').locator('td:nth-child(3)').allTextContents()
    expect(states).toEqual(['Waiting', 'Waiting'])
    await page.close()
  })

  it('cancels a waiting job, and shows it cancelled', async () => {
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console/jobs?state=waiting`)
    await page.getByRole('button', { name: `Cancel job ${waiting} (second.png)` }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Job ${waiting} (second.png) is cancelled.` })
      .waitFor()
    await expect.poll(() => page.getByRole('button', { name: `Cancel job ${waiting} (second.png)` }).count()).toBe(0)
    expect(oneJob(await padmin.get(`/job/${waiting}`))).toMatchObject({
      state: 'cancelled',
      lastError: 'cancelled by an operator',
    })
    await accessible(page, 'a job cancelled')

    await page.goto(`${app.url}/console/jobs?state=cancelled`)
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'second.png' }) })
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('Cancelled')
    await row.getByRole('button', { name: `Retry job ${waiting} (second.png)` }).waitFor()
    await page.goto(`${app.url}/console/jobs?state=running`)
    await page.getByText('No job in this state.').waitFor()
    await accessible(page, 'no job in a state')
    await page.close()
  })

  it('says why the list could not be loaded, and loads it again', async () => {
    const page = await chromium.signedIn('padmin')
    let refuse = true
    // The API's list only (the section's own page is /console/jobs).
    await page.route(
      (url) => url.pathname === '/jobs',
      (route) => (refuse ? route.fulfill({ status: 500, body: '', contentType: 'application/xml' }) : route.continue()),
    )
    await page.goto(`${app.url}/console/jobs`)
    await page
      .getByRole('alert')
      .getByText(/This could not be loaded/)
      .waitFor()
    await accessible(page, 'the jobs could not be loaded')
    refuse = false
    await page.getByRole('button', { name: 'Try again' }).click()
    await page.getByText('Jobs 1 to 2 of 2').waitFor()
    await page.close()
  })

  it('offers a Publisher neither the section nor the card; the API refuses them', async () => {
    const page = await chromium.signedIn('publisher')
    await page.goto(`${app.url}/console`)
    await page.getByRole('heading', { name: 'Your latest uploads' }).waitFor()
    const sections = page.getByRole('navigation', { name: 'Console sections' })
    expect(await sections.getByRole('link', { name: 'Jobs' }).count()).toBe(0)
    expect(await page.getByRole('region', { name: 'Jobs' }).count()).toBe(0)
    await page.goto(`${app.url}/console/jobs`)
    await page.getByText('Jobs are followed by administrators, and your profile is not one of them.').waitFor()
    expect(await page.getByRole('table').count()).toBe(0)
    await accessible(page, 'the jobs, not for a Publisher')
    expect((await publisher.get('/jobs')).status).toBe(403)
    expect((await publisher.post(`/job/${waiting}/retry`)).status).toBe(403)
    await page.close()
  })

  it('in French, with the keyboard only, and 320 px wide', async () => {
    const page = await chromium.signedIn('padmin', { locale: 'fr-FR', width: 320 })
    await page.goto(`${app.url}/console/jobs`)
    await page.getByRole('heading', { name: 'Tâches', level: 1 }).waitFor()
    await page.getByText('Tâches 1 à 2 sur 2').waitFor()
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'the French jobs at 320 px')

    await page.getByRole('combobox', { name: 'État' }).focus()
    await page.keyboard.press('End')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await page.waitForURL(/state=cancelled/)
    const retry = page.getByRole('button', { name: `Relancer la tâche ${waiting} (second.png)` })
    await retry.focus()
    await page.keyboard.press('Enter')
    await page
      .getByRole('status')
      .filter({ hasText: `La tâche ${waiting} (second.png) est de nouveau en attente.` })
      .waitFor()
    expect(text(xmlOf(await padmin.get(`/job/${waiting}`), 200).job.state)).toBe('waiting')
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320)
    await accessible(page, 'a French job retried at 320 px')
    await page.close()
  })

  it('shows 50 jobs to a page, newest first, with the next and previous pages', async () => {
    await succeededJobs(waitingFile, 55)
    const page = await chromium.signedIn('padmin')
    await page.goto(`${app.url}/console/jobs`)
    await page.getByText('Jobs 1 to 50 of 57').waitFor()
    const rows = page.getByRole('table').getByRole('row')
    expect(await rows.count()).toBe(51)
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(0)
    await page.getByRole('link', { name: 'Next page' }).click()
    await page.getByText('Jobs 51 to 57 of 57').waitFor()
    expect(new URL(page.url()).searchParams.get('page')).toBe('2')
    // The two oldest: the jobs of the files uploaded first.
    expect(await rows.last().getByRole('rowheader').textContent()).toBe(HOSTILE)
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0)
    await accessible(page, 'the second page of jobs')
    await page.getByRole('link', { name: 'Previous page' }).click()
    await page.getByText('Jobs 1 to 50 of 57').waitFor()
    await page.close()
  })
})
