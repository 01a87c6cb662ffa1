import { useSignal } from '@preact/signals'
import { useEffect, useRef } from 'preact/hooks'
import * as tus from 'tus-js-client'
import { type Session, childText, getPage, postXml, reasonOf } from './api.js'
import { bytes } from './format.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/** One file of the panel: its upload (tus), then its encoding, as the API reports it. */
interface Item {
  id: number
  name: string
  size: number
  sent: number
  state: 'uploading' | 'paused' | 'failed' | 'uploaded'
  /** Why the upload failed (the server's answer, or the network). */
  problem?: string
  /** Once uploaded: the file's slug, its encoding status and progress. */
  slug?: string
  encoding?: { status: string; progress: number }
  resumed?: boolean
}

/** Statuses after which a file's encoding no longer moves. */
const SETTLED = ['finished', 'failed', 'success']
/** Every this many ms while files encode, one request for all of them (not one per file). */
const POLL_MS = 2000
/** Bytes per PATCH: a cut costs at most this much again, and progress moves often enough. */
const CHUNK = 8 * 1024 * 1024

let nextId = 1

/**
 * Uploads into the folder shown: files chosen or dropped, each sent with tus (resumable: a cut connection is retried,
 * and after a reload choosing the same file again continues where the server stopped), a progress bar each, then the
 * encoding's progress of all of them from one request every two seconds (`GET /search/files`).
 */
export function UploadPanel(props: {
  session: Session
  language: Language
  folder: string | null
  onUploaded: () => void
}) {
  const { session, language, folder, onUploaded } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const items = useSignal<Item[]>([])
  const dragging = useSignal(false)
  const uploads = useRef(new Map<number, tus.Upload>())
  const input = useRef<HTMLInputElement>(null)

  const update = (id: number, change: Partial<Item>) =>
    (items.value = items.value.map((item) => (item.id === id ? { ...item, ...change } : item)))

  async function endpoint(): Promise<string> {
    const doc = await postXml(
      session,
      folder ? `/files/${encodeURIComponent(folder)}/upload_links` : '/files/upload_links',
    )
    const json = Array.from(doc.getElementsByTagName('link')).find((link) => link.getAttribute('rel') === 'json')
    return (json?.getAttribute('href') || '').replace('/upload/json?', '/upload/tus?')
  }

  async function add(files: FileList | File[]) {
    const chosen = Array.from(files)
    if (!chosen.length) return
    let url: string
    try {
      url = await endpoint()
    } catch (error) {
      const problem = reasonOf(error)
      items.value = [
        ...items.value,
        ...chosen.map((file) => ({
          id: nextId++,
          name: file.name,
          size: file.size,
          sent: 0,
          state: 'failed' as const,
          problem,
        })),
      ]
      return
    }
    for (const file of chosen) {
      const id = nextId++
      items.value = [...items.value, { id, name: file.name, size: file.size, sent: 0, state: 'uploading' }]
      const upload = new tus.Upload(file, {
        endpoint: url,
        chunkSize: CHUNK,
        retryDelays: [0, 1000, 3000, 5000, 10000],
        metadata: { filename: file.name },
        // tus-js-client's own fingerprint holds the endpoint, whose token changes with every page: this one names the
        // user and the file only, so a reload finds the upload it cut.
        fingerprint: async (chosen: File) =>
          ['mediactl', session.username, chosen.name, chosen.type, chosen.size, chosen.lastModified].join('-'),
        removeFingerprintOnSuccess: true,
        onProgress: (sent) => update(id, { sent }),
        onError: (error) => update(id, { state: 'failed', problem: tusReasonOf(error) }),
        onSuccess: ({ lastResponse }) => {
          const slug = slugOf(lastResponse.getBody())
          update(id, { state: 'uploaded', sent: file.size, slug, encoding: { status: 'pending', progress: 0 } })
          onUploaded()
        },
      })
      uploads.current.set(id, upload)
      // An upload of this file cut before (a reload, a closed tab) continues from where the server stopped.
      const previous = await upload.findPreviousUploads()
      if (previous[0]) {
        upload.resumeFromPreviousUpload(previous[0])
        update(id, { resumed: true })
      }
      upload.start()
    }
  }

  function pause(id: number) {
    void uploads.current.get(id)?.abort()
    update(id, { state: 'paused' })
  }

  function resume(id: number) {
    uploads.current.get(id)?.start()
    update(id, { state: 'uploading', problem: undefined })
  }

  // The encodings of the files uploaded here, all from one request, until each has settled.
  // The encodings of the files uploaded here, all from one request every POLL_MS, whatever the uploads do meanwhile.
  useEffect(() => {
    let polling = false
    const timer = setInterval(async () => {
      const encoding = items.value.filter((item) => item.slug && !SETTLED.includes(item.encoding?.status || ''))
      if (!encoding.length || polling) return
      polling = true
      try {
        const seen = await encodingsOf(session, Math.max(50, items.value.length))
        items.value = items.value.map((item) =>
          item.slug && seen.has(item.slug) ? { ...item, encoding: seen.get(item.slug) } : item,
        )
        if (encoding.some((item) => SETTLED.includes(seen.get(item.slug!)?.status || ''))) onUploaded()
      } catch {
        // Tried again at the next tick: a poll that fails is not the upload's failure.
      } finally {
        polling = false
      }
    }, POLL_MS)
    return () => clearInterval(timer)
  }, [])

  return (
    <section class="card" aria-labelledby="upload-heading">
      <h2 id="upload-heading">{t('upload.title')}</h2>
      <div
        class={dragging.value ? 'drop over' : 'drop'}
        onDragOver={(event) => {
          event.preventDefault()
          dragging.value = true
        }}
        onDragLeave={() => (dragging.value = false)}
        onDrop={(event) => {
          event.preventDefault()
          dragging.value = false
          if (event.dataTransfer) void add(event.dataTransfer.files)
        }}
      >
        <label for="upload-files">{t('upload.choose')}</label>
        <input
          ref={input}
          type="file"
          id="upload-files"
          multiple
          aria-describedby="upload-hint"
          onChange={(event) => {
            const target = event.target as HTMLInputElement
            if (target.files) void add(target.files)
            target.value = ''
          }}
        />
        <p class="hint" id="upload-hint">
          {t('upload.hint')}
        </p>
      </div>
      {items.value.length ? (
        <ul class="uploads">
          {items.value.map((item) => (
            <UploadRow key={item.id} item={item} t={t} language={language} onPause={pause} onResume={resume} />
          ))}
        </ul>
      ) : null}
      {items.value.length && items.value.every((item) => item.state === 'uploaded' || item.state === 'failed') ? (
        <div class="actions">
          <button type="button" onClick={() => input.current?.click()}>
            {t('upload.another')}
          </button>
        </div>
      ) : null}
    </section>
  )
}

function UploadRow(props: {
  item: Item
  t: (key: MessageKey, values?: Record<string, string | number>) => string
  language: Language
  onPause: (id: number) => void
  onResume: (id: number) => void
}) {
  const { item, t, language, onPause, onResume } = props
  const percent = item.size ? Math.floor((item.sent / item.size) * 100) : 100
  const status =
    item.state === 'failed'
      ? t('upload.failed', { reason: item.problem || '' })
      : item.state === 'paused'
        ? t('upload.paused', { percent })
        : item.state === 'uploading'
          ? t(item.resumed ? 'upload.resuming' : 'upload.sending', {
              percent,
              sent: bytes(item.sent, language),
              size: bytes(item.size, language),
            })
          : item.encoding?.status === 'finished'
            ? t('upload.ready')
            : item.encoding?.status === 'failed'
              ? t('upload.encoding_failed')
              : t('upload.encoding', { percent: Math.round(item.encoding?.progress ?? 0) })
  return (
    <li>
      <p class="name">{item.name}</p>
      <progress
        max={100}
        value={item.state === 'uploaded' ? Math.round(item.encoding?.progress ?? 0) : percent}
        aria-label={t(item.state === 'uploaded' ? 'upload.encoding.label' : 'upload.progress.label', {
          name: item.name,
        })}
      />
      <p role="status" class={item.state === 'failed' ? 'problem' : undefined}>
        {status}
      </p>
      {item.state === 'uploading' ? (
        <button type="button" class="quiet" onClick={() => onPause(item.id)}>
          {t('upload.pause', { name: item.name })}
        </button>
      ) : null}
      {item.state === 'paused' || (item.state === 'failed' && item.sent > 0) ? (
        <button type="button" class="quiet" onClick={() => onResume(item.id)}>
          {t('upload.resume', { name: item.name })}
        </button>
      ) : null}
    </li>
  )
}

/** The encoding status and progress of the user's `count` newest files, by slug (one request). */
async function encodingsOf(
  session: Session,
  count: number,
): Promise<Map<string, { status: string; progress: number }>> {
  const { doc } = await getPage(session, '/search/files?sort=-created', 0, count)
  return new Map(
    Array.from(doc.getElementsByTagName('file')).map((element) => [
      childText(element, 'slug'),
      { status: childText(element, 'encoding_status'), progress: Number(childText(element, 'encoding_progress')) },
    ]),
  )
}

/** The server's own words for a failed tus request, else the network's. */
function tusReasonOf(error: Error): string {
  const response = (error as Error & { originalResponse?: tus.HttpResponse | null }).originalResponse
  const body = response?.getBody()
  if (body) {
    const found = /<message><!\[CDATA\[([^\]]*)\]\]><\/message>/.exec(body) || /"message"\s*:\s*"([^"]*)"/.exec(body)
    if (found) return found[1]!
  }
  return response ? `${response.getStatus()}` : error.message
}

/** The slug in the last PATCH's JSON: `{"result": {"slug": ...}}`. */
function slugOf(body: string | undefined): string | undefined {
  try {
    return (JSON.parse(body || '{}') as { result?: { slug?: string } }).result?.slug
  } catch {
    return undefined
  }
}
