import { useSignal } from '@preact/signals'
import { type Session, postXml } from './api.js'
import { VISIBILITIES } from './library-publish.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { type Site, type Stream, loadStreams, mayPublish, placeHref } from './publishing-data.js'

/**
 * A visibility for people (the words the library publishes with, `VISIBILITIES`); a word the console does not know,
 * as it is.
 */
export function visibilityLabel(language: Language, word: string): string {
  return (VISIBILITIES as readonly string[]).includes(word)
    ? message(language, `publishing.visibility.${word as (typeof VISIBILITIES)[number]}`)
    : word
}

/** The streams in the order of their tree (each followed by the ones inside it), with their depth. */
function inTreeOrder(streams: Stream[], parent = '', depth = 0): { stream: Stream; depth: number }[] {
  const ordered: { stream: Stream; depth: number }[] = []
  for (const stream of streams.filter((one) => one.parent === parent)) {
    ordered.push({ stream, depth }, ...inTreeOrder(streams, stream.slug, depth + 1))
  }
  return ordered
}

/** The streams below `parent` ('' for the top of the site), each with the ones below it: nested lists. */
function StreamTree(props: { session: Session; language: Language; streams: Stream[]; parent: string }) {
  const { session, language, streams, parent } = props
  const children = streams.filter((stream) => stream.parent === parent)
  if (!children.length) return null
  return (
    <ul>
      {children.map((stream) => (
        <li key={stream.slug}>
          <a href={placeHref(session, { page: 'stream', slug: stream.slug })}>{stream.title}</a>{' '}
          <span class="hint">({visibilityLabel(language, stream.visibility)})</span>
          <StreamTree session={session} language={language} streams={streams} parent={stream.slug} />
        </li>
      ))}
    </ul>
  )
}

/**
 * A new stream (`POST /media/<slug>/streams`), at the top of the site or below one of its streams (`parent_stream`).
 * Hidden unless told: seen only by those who may see hidden streams until someone makes it visible.
 */
export function StreamForm(props: {
  session: Session
  language: Language
  media: string
  streams: Stream[]
  parent?: string
  onCreated: () => void
}) {
  const { session, language, media, streams, onCreated } = props
  const t = (key: MessageKey) => message(language, key)
  const title = useSignal('')
  const parent = useSignal(props.parent ?? '')
  const visibility = useSignal<string>('hidden')
  const action = useAction()
  async function create(event: Event) {
    event.preventDefault()
    const ok = await action.run(() =>
      postXml(session, `/media/${encodeURIComponent(media)}/streams`, {
        title: title.value,
        visibility: visibility.value,
        ...(parent.value ? { parent_stream: parent.value } : {}),
      }),
    )
    if (ok) {
      title.value = ''
      onCreated()
    }
  }
  return (
    <form onSubmit={create} aria-labelledby="stream-new-heading">
      <h3 id="stream-new-heading">{t('publishing.stream.new')}</h3>
      <label for="stream-new-title">{t('publishing.stream.title')}</label>
      <input
        type="text"
        id="stream-new-title"
        required
        value={title.value}
        onInput={(event) => (title.value = (event.target as HTMLInputElement).value)}
      />
      <label for="stream-new-parent">{t('publishing.stream.parent')}</label>
      <select
        id="stream-new-parent"
        value={parent.value}
        onChange={(event) => (parent.value = (event.target as HTMLSelectElement).value)}
      >
        <option value="">{t('publishing.stream.top')}</option>
        {inTreeOrder(streams).map(({ stream, depth }) => (
          <option key={stream.slug} value={stream.slug}>
            {'\u2003'.repeat(depth)}
            {stream.title}
          </option>
        ))}
      </select>
      <VisibilityField
        language={language}
        id="stream-new-visibility"
        value={visibility.value}
        onChange={(value) => (visibility.value = value)}
      />
      <FormActions language={language} action={action} submit={t('publishing.stream.create')} />
    </form>
  )
}

/** A visibility choice (streams and resources share the three words), with what each means. */
export function VisibilityField(props: {
  language: Language
  id: string
  value: string
  onChange: (value: string) => void
}) {
  const { language, id, value, onChange } = props
  return (
    <>
      <label for={id}>{message(language, 'publishing.visibility')}</label>
      <select
        id={id}
        value={value}
        aria-describedby={`${id}-hint`}
        onChange={(event) => onChange((event.target as HTMLSelectElement).value)}
      >
        {VISIBILITIES.map((word) => (
          <option key={word} value={word}>
            {message(language, `publishing.visibility.${word}`)}
          </option>
        ))}
      </select>
      <p class="hint" id={`${id}-hint`}>
        {message(language, 'publishing.visibility.hint')}
      </p>
    </>
  )
}

/** The streams of a site as a tree (`GET /media/<slug>/streams`), and a new one for those who publish. */
export function StreamsCard(props: { session: Session; language: Language; site: Site }) {
  const { session, language, site } = props
  const t = (key: MessageKey) => message(language, key)
  const { current, reload } = useLoad(() => loadStreams(session, site.slug))
  return (
    <section class="card" aria-labelledby="streams-heading">
      <h2 id="streams-heading">{t('publishing.streams')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {current.state === 'ready' ? (
        <>
          {current.value.length ? (
            <StreamTree session={session} language={language} streams={current.value} parent="" />
          ) : (
            <p>{t('publishing.streams.none')}</p>
          )}
          {mayPublish(session) ? (
            <StreamForm
              session={session}
              language={language}
              media={site.slug}
              streams={current.value}
              onCreated={reload}
            />
          ) : null}
        </>
      ) : null}
    </section>
  )
}
