import { fileHref } from './file-data.js'
import type { JobRow } from './jobs-data.js'
import { jobLabel, jobName } from './jobs-labels.js'
import { CANCELLABLE, RETRYABLE } from './jobs-query.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/**
 * The jobs of a page: file (a link to its page), kind, state, attempt n/m, progress, last error, and Retry or Cancel
 * where the job's state allows it (the API's rule). `busy` is the job being acted on: its buttons wait.
 */
export function JobsTable(props: {
  base: string
  language: Language
  jobs: JobRow[]
  busy: string | null
  onAct: (job: JobRow, action: 'retry' | 'cancel') => void
}) {
  const { base, language, jobs, busy, onAct } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  return (
    <div class="scroll">
      <table class="jobs">
        <caption class="hidden">{t('jobs.list')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('jobs.column.file')}</th>
            <th scope="col">{t('jobs.column.kind')}</th>
            <th scope="col">{t('jobs.column.state')}</th>
            <th scope="col">{t('jobs.column.attempt')}</th>
            <th scope="col">{t('jobs.column.progress')}</th>
            <th scope="col">{t('jobs.column.error')}</th>
            <th scope="col">{t('jobs.column.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => {
            const names = { id: job.id, name: jobName(job) }
            return (
              <tr key={job.id}>
                <th scope="row">
                  {job.file ? (
                    <a href={fileHref(base, job.file.slug)}>{job.file.name}</a>
                  ) : (
                    t('jobs.no_file', { subject: job.subject })
                  )}
                </th>
                <td>{jobLabel(language, job.kind)}</td>
                <td>{jobLabel(language, job.state)}</td>
                <td>{t('jobs.attempt', { attempts: job.attempts, max: job.maxAttempts })}</td>
                <td>{t('jobs.progress', { progress: Math.floor(job.progress) })}</td>
                <td class="error">{job.lastError}</td>
                <td>
                  {RETRYABLE.includes(job.state) ? (
                    <button
                      type="button"
                      aria-label={t('jobs.retry.label', names)}
                      disabled={busy !== null}
                      onClick={() => onAct(job, 'retry')}
                    >
                      {busy === job.id ? t('jobs.working') : t('jobs.retry')}
                    </button>
                  ) : null}
                  {CANCELLABLE.includes(job.state) ? (
                    <button
                      type="button"
                      class="danger"
                      aria-label={t('jobs.cancel.label', names)}
                      disabled={busy !== null}
                      onClick={() => onAct(job, 'cancel')}
                    >
                      {busy === job.id ? t('jobs.working') : t('jobs.cancel')}
                    </button>
                  ) : null}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
