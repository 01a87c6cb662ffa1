import { useSignal } from '@preact/signals'
import { type Session, deleteAt, putXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { Editable } from './publishing-editable.js'
import { type Stream, changedFields, loadStream, loadStreams, mayPublish, placeHref } from './publishing-data.js'
import { ResourcesCard } from './publishing-resources.js'
import { StreamForm, VisibilityField, visibilityLabel } from './publishing-streams.js'

/** A stream's new title or visibility (`PUT /stream/<slug>`, only what changed). */
function RenameForm(props: {
  session: Session
  language: Language
  stream: Stream
  onSaved: () => void
  onCancel: () => void
}) {
  const { session, language, stream, onSaved, onCancel } = props
  const t = (key: MessageKey) => message(language, key)
  const title = useSignal(stream.title)
  const visibility = useSignal(stream.visibility)
  const action = useAction()
  async function save(event: Event) {
    event.preventDefault()
    const form = changedFields(
      { title: stream.title, visibility: stream.visibility },
      { title: title.value, visibility: visibility.value },
    )
    if (await action.run(() => putXml(session, `/stream/${encodeURIComponent(stream.slug)}`, form))) onSaved()
  }
  return (
    <form onSubmit={save} aria-label={t('publishing.stream.rename')}>
      <label for="stream-title">{t('publishing.stream.title')}</label>
      <input
        type="text"
        id="stream-title"
        required
        value={title.value}
        onInput={(event) => (title.value = (event.target as HTMLInputElement).value)}
      />
      <VisibilityField
        language={language}
        id="stream-visibility"
        value={visibility.value}
        onChange={(value) => (visibility.value = value)}
      />
      <FormActions language={language} action={action} submit={t('publishing.save')} onCancel={onCancel} />
    </form>
  )
}

/**
 * One stream: its title and visibility (renamed, or deleted after a confirmation, with the streams and resources
 * below it), a new stream below it, and its resources.
 */
export function StreamPage(props: { session: Session; language: Language; slug: string }) {
  const { session, language, slug } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(async () => {
    const stream = await loadStream(session, slug)
    // Someone granted this stream only does not see its site's list (404): the stream alone then.
    const streams = await loadStreams(session, stream.media).catch(() => [{ ...stream, parent: '' }])
    return { stream, streams }
  })
  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const { stream, streams } = current.value
  const parent = streams.find((other) => other.slug === stream.parent)
  const manage = mayPublish(session)
  return (
    <div>
      <section class="card" aria-labelledby="stream-heading">
        <h2 id="stream-heading">{t('publishing.stream', { title: stream.title })}</h2>
        <p>
          <a href={placeHref(session, { page: 'site', slug: stream.media })}>{t('publishing.stream.site')}</a>
          {parent ? (
            <>
              {' · '}
              <a href={placeHref(session, { page: 'stream', slug: parent.slug })}>
                {t('publishing.stream.below', { title: parent.title })}
              </a>
            </>
          ) : null}
        </p>
        <Editable
          language={language}
          edit={manage ? t('publishing.stream.rename_named', { title: stream.title }) : null}
          form={(close) => <RenameForm session={session} language={language} stream={stream} {...close} />}
          onSaved={reload}
          remove={{
            label: t('publishing.stream.delete', { title: stream.title }),
            question: t('publishing.stream.delete.question', { title: stream.title }),
            onConfirm: () => deleteAt(session, `/stream/${encodeURIComponent(stream.slug)}`),
            onDone: () => location.assign(placeHref(session, { page: 'site', slug: stream.media })),
          }}
        >
          <dl class="facts">
            <dt>{t('publishing.visibility')}</dt>
            <dd>{visibilityLabel(language, stream.visibility)}</dd>
          </dl>
        </Editable>
        {manage ? (
          <StreamForm
            session={session}
            language={language}
            media={stream.media}
            streams={streams}
            parent={stream.slug}
            onCreated={reload}
          />
        ) : null}
      </section>
      <ResourcesCard session={session} language={language} stream={stream} />
    </div>
  )
}
