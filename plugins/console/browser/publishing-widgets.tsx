import { type Session, deleteAt, ownPlatformSlug } from './api.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { Editable } from './publishing-editable.js'
import { CopyField } from './copy.js'
import { type Resource, type Widget, loadChoices, loadWidgets, mayPublish } from './publishing-data.js'
import { type PlayerChoices, WidgetForm } from './publishing-widget-form.js'

/** The themes and behaviors the profile may name (`player_theme.use`, `player_behavior.use`), else null. */
async function loadPlayerChoices(session: Session): Promise<PlayerChoices> {
  const useThemes = session.flags.has('player_theme.use')
  const useBehaviors = session.flags.has('player_behavior.use')
  if (!useThemes && !useBehaviors) return { themes: null, behaviors: null }
  const platform = await ownPlatformSlug(session)
  const [themes, behaviors] = await Promise.all([
    useThemes ? loadChoices(session, platform, 'player_theme') : null,
    useBehaviors ? loadChoices(session, platform, 'player_behavior') : null,
  ])
  return { themes, behaviors }
}

/** One widget: its size, its two embed codes to copy, and its change or deletion for those who publish. */
function WidgetItem(props: {
  session: Session
  language: Language
  resource: string
  widget: Widget
  choices: PlayerChoices
  onChanged: () => void
}) {
  const { session, language, resource, widget, choices, onChanged } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const id = `widget-${widget.slug}`
  return (
    <li>
      <h3>{t('publishing.widget', { name: widget.name, size: widget.size })}</h3>
      <Editable
        language={language}
        edit={mayPublish(session) ? t('publishing.widget.edit', { name: widget.name }) : null}
        form={(close) => (
          <WidgetForm
            session={session}
            language={language}
            resource={resource}
            widget={widget}
            choices={choices}
            {...close}
          />
        )}
        onSaved={onChanged}
        remove={{
          label: t('publishing.widget.delete', { name: widget.name }),
          question: t('publishing.widget.delete.question', { name: widget.name }),
          onConfirm: () =>
            deleteAt(session, `/resource/${encodeURIComponent(resource)}/widgets/${encodeURIComponent(widget.slug)}`),
          onDone: onChanged,
        }}
      >
        <CopyField
          language={language}
          copied={t('publishing.copied')}
          id={`${id}-iframe`}
          label={t('publishing.widget.iframe', { name: widget.name })}
          button={t('publishing.widget.iframe.copy', { name: widget.name })}
          value={widget.iframe}
        />
        <CopyField
          language={language}
          copied={t('publishing.copied')}
          id={`${id}-script`}
          label={t('publishing.widget.script', { name: widget.name })}
          button={t('publishing.widget.script.copy', { name: widget.name })}
          value={widget.script}
        />
      </Editable>
    </li>
  )
}

/** The widgets of a resource (`GET /resource/<slug>/widgets`, then each one's info for its embed codes). */
export function WidgetsCard(props: { session: Session; language: Language; resource: Resource }) {
  const { session, language, resource } = props
  const t = (key: MessageKey) => message(language, key)
  const { current, reload } = useLoad(async () => {
    const [widgets, choices] = await Promise.all([loadWidgets(session, resource.slug), loadPlayerChoices(session)])
    return { widgets, choices }
  })
  return (
    <section class="card" aria-labelledby="widgets-heading">
      <h2 id="widgets-heading">{t('publishing.widgets')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? <LoadProblem language={language} reason={current.reason} onRetry={reload} /> : null}
      {current.state === 'ready' ? (
        <>
          {current.value.widgets.length ? (
            <ul class="items">
              {current.value.widgets.map((widget) => (
                <WidgetItem
                  key={widget.slug}
                  session={session}
                  language={language}
                  resource={resource.slug}
                  widget={widget}
                  choices={current.value.choices}
                  onChanged={reload}
                />
              ))}
            </ul>
          ) : (
            <p>{t('publishing.widgets.none')}</p>
          )}
          {mayPublish(session) ? (
            <>
              <h3>{t('publishing.widget.new')}</h3>
              <WidgetForm
                session={session}
                language={language}
                resource={resource.slug}
                choices={current.value.choices}
                onSaved={reload}
              />
            </>
          ) : null}
        </>
      ) : null}
    </section>
  )
}
