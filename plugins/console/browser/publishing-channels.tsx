import { useSignal } from '@preact/signals'
import { type Session, deleteAt, postXml, putXml } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { FormActions } from './publishing-action.js'
import { ConfirmButton } from './publishing-confirm.js'
import { type Channel, type Site, loadChannels, mayPublish } from './publishing-data.js'

/** The channel types the API builds in (plugins may add more). */
const CHANNEL_TYPES = ['web', 'widget', 'api', 'syndication']

/** The built-in types, and a channel's own type when a plugin made it another word (kept, not changed silently). */
const typesWith = (current: string): string[] =>
  CHANNEL_TYPES.includes(current) ? CHANNEL_TYPES : [...CHANNEL_TYPES, current]

/**
 * A channel's name, type and whether it is online: a new channel (`POST /media/<slug>/channels`) or a change
 * (`PUT /media/<slug>/channel/<channel>`). Theme and skin stay the API's (they need `media.change_theme`).
 */
function ChannelForm(props: {
  session: Session
  language: Language
  site: Site
  channel?: Channel
  onSaved: () => void
  onCancel?: () => void
}) {
  const { session, language, site, channel, onSaved, onCancel } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const name = useSignal(channel?.name ?? '')
  const type = useSignal(channel?.type ?? 'syndication')
  const online = useSignal(channel?.online ?? true)
  const action = useAction()
  const id = channel ? `channel-${channel.slug}` : 'channel-new'
  async function save(event: Event) {
    event.preventDefault()
    const form = { name: name.value, type: type.value, is_online: online.value ? '1' : '0' }
    const media = encodeURIComponent(site.slug)
    const ok = await action.run(() =>
      channel
        ? putXml(session, `/media/${media}/channel/${encodeURIComponent(channel.slug)}`, form)
        : postXml(session, `/media/${media}/channels`, form),
    )
    if (ok) {
      if (!channel) name.value = ''
      onSaved()
    }
  }
  return (
    <form
      onSubmit={save}
      aria-label={channel ? t('publishing.channel.edit', { name: channel.name }) : t('publishing.channel.new')}
    >
      <label for={`${id}-name`}>{t('publishing.channel.name')}</label>
      <input
        type="text"
        id={`${id}-name`}
        required
        value={name.value}
        onInput={(event) => (name.value = (event.target as HTMLInputElement).value)}
      />
      <label for={`${id}-type`}>{t('publishing.channel.type')}</label>
      <select
        id={`${id}-type`}
        value={type.value}
        onChange={(event) => (type.value = (event.target as HTMLSelectElement).value)}
      >
        {typesWith(type.value).map((word) => (
          <option key={word} value={word}>
            {word}
          </option>
        ))}
      </select>
      <label for={`${id}-online`}>
        <input
          type="checkbox"
          id={`${id}-online`}
          checked={online.value}
          onChange={(event) => (online.value = (event.target as HTMLInputElement).checked)}
        />{' '}
        {t('publishing.channel.online')}
      </label>
      <FormActions
        language={language}
        action={action}
        submit={channel ? t('publishing.save') : t('publishing.channel.create')}
        onCancel={onCancel}
      />
    </form>
  )
}

/** The channels of a site (`GET /media/<slug>/channels`), their RSS feeds, and their changes for those who publish. */
export function ChannelsCard(props: { session: Session; language: Language; site: Site }) {
  const { session, language, site } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadChannels(session, site.slug))
  const editing = useSignal('')
  const manage = mayPublish(session)
  return (
    <section class="card" aria-labelledby="channels-heading">
      <h2 id="channels-heading">{t('publishing.channels')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {current.state === 'ready' ? (
        <>
          {current.value.length ? (
            <ul class="items">
              {current.value.map((channel) => (
                <li key={channel.slug}>
                  {editing.value === channel.slug ? (
                    <ChannelForm
                      session={session}
                      language={language}
                      site={site}
                      channel={channel}
                      onSaved={() => {
                        editing.value = ''
                        reload()
                      }}
                      onCancel={() => (editing.value = '')}
                    />
                  ) : (
                    <>
                      <p>
                        <strong>{channel.name}</strong>{' '}
                        {t(channel.online ? 'publishing.channel.is_online' : 'publishing.channel.is_offline', {
                          type: channel.type,
                        })}
                      </p>
                      {channel.feed ? (
                        <p>
                          <a href={channel.feed}>{t('publishing.channel.feed', { name: channel.name })}</a>
                        </p>
                      ) : null}
                      {manage ? (
                        <div class="actions">
                          <button type="button" class="quiet" onClick={() => (editing.value = channel.slug)}>
                            {t('publishing.channel.edit', { name: channel.name })}
                          </button>
                          <ConfirmButton
                            language={language}
                            label={t('publishing.channel.delete', { name: channel.name })}
                            question={t('publishing.channel.delete.question', { name: channel.name })}
                            onConfirm={() =>
                              deleteAt(
                                session,
                                `/media/${encodeURIComponent(site.slug)}/channel/${encodeURIComponent(channel.slug)}`,
                              )
                            }
                            onDone={reload}
                          />
                        </div>
                      ) : null}
                    </>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p>{t('publishing.channels.none')}</p>
          )}
          {manage ? (
            <>
              <h3 id="channel-new-heading">{t('publishing.channel.new')}</h3>
              <ChannelForm session={session} language={language} site={site} onSaved={reload} />
            </>
          ) : null}
        </>
      ) : null}
    </section>
  )
}
