import type { Counter, Histogram, PluginMetrics } from '../../src/kernel/index.js'

/**
 * How a file arrived, a bounded label: `multipart` (the whole file in one request: `POST
 * /files`, or an upload link's json endpoint or plain html form), `chunked` (pieces, `chunk`
 * and `chunks`: the same endpoints, the upload page's Flow.js included), `tus` (resumable).
 */
export type UploadMethod = 'multipart' | 'chunked' | 'tus'

/**
 * The upload metrics (docs/operations.md, Metrics). Counted when an upload becomes a file,
 * in the process that makes the file: bytes of files accepted, not bytes received (a refused
 * upload, a piece sent again or an abandoned one counts nothing), and the time from its first
 * byte to the file: the request for a one-shot upload, from the first piece or the creation
 * for the others (idle time between requests included: what the uploader waited).
 */
export class UploadMetrics {
  private readonly bytes: Counter<'method'>
  private readonly seconds: Histogram<'method'>

  constructor(metrics: PluginMetrics) {
    this.bytes = metrics.counter(
      'mediactl_upload_bytes_total',
      'Bytes of uploads that became files, by upload method (multipart, chunked, tus).',
      ['method'],
    )
    this.seconds = metrics.histogram(
      'mediactl_upload_duration_seconds',
      'Time from the first byte of an upload (its request, first piece or creation) to its file, by upload method.',
      ['method'],
      [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
    )
  }

  /** Counts a file of `bytes` made by `method`, its upload started at `startedAt` (epoch ms). */
  uploaded(method: UploadMethod, bytes: number, startedAt: number): void {
    this.bytes.inc({ method }, bytes)
    this.seconds.observe({ method }, Math.max(0, Date.now() - startedAt) / 1000)
  }
}
