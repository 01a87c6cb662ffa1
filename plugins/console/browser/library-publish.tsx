import { useSignal } from '@preact/signals'
import { type Session, childText, getXml, mediaSlugs, postXml, reasonOf } from './api.js'
import type { FileRow } from './library-data.js'
import { LoadProblem, Loading, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'

interface Place {
  slug: string
  name: string
  streams: { slug: string; title: string }[]
}

interface Published {
  name: string
  title: string
  /** The resource's player page: what a share link points at. */
  player: string
  problem?: string
}

export const VISIBILITIES = ['hidden', 'visible', 'draft'] as const

/** The media sites the user sees (`GET /`), each with its streams (`GET /media/<slug>/streams`). */
async function loadPlaces(session: Session): Promise<Place[]> {
  return Promise.all(
    (await mediaSlugs(session)).map(async (slug) => {
      const [media, streams] = await Promise.all([
        getXml(session, `/media/${encodeURIComponent(slug)}`),
        getXml(session, `/media/${encodeURIComponent(slug)}/streams`),
      ])
      return {
        slug,
        name: childText(media, 'name') || slug,
        streams: Array.from(streams.getElementsByTagName('stream')).map((stream) => ({
          slug: childText(stream, 'slug'),
          title: childText(stream, 'title'),
        })),
      }
    }),
  )
}

/** A file's name without its extension: the resource's first title. */
const titleOf = (name: string): string => name.replace(/\.[A-Za-z0-9]{1,5}$/, '') || name

/**
 * Publishes the selected files into a stream (`POST /stream/<slug>/resources`, one request each): hidden by default,
 * seen only by those who may see hidden resources, until someone makes them visible. Each published file gets its
 * share link (the resource's player page) with a copy button.
 */
export function PublishPanel(props: { session: Session; language: Language; files: FileRow[]; onClose: () => void }) {
  const { session, language, files, onClose } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const { current, reload } = useLoad(() => loadPlaces(session))
  const stream = useSignal('')
  const visibility = useSignal<(typeof VISIBILITIES)[number]>('hidden')
  const results = useSignal<Published[] | null>(null)
  const copied = useSignal('')

  async function publish(event: Event) {
    event.preventDefault()
    const done: Published[] = []
    for (const file of files) {
      const title = titleOf(file.name)
      try {
        const doc = await postXml(session, `/stream/${encodeURIComponent(stream.value)}/resources`, {
          file: file.slug,
          title,
          visibility: visibility.value,
        })
        done.push({ name: file.name, title, player: childText(doc, 'player') })
      } catch (error) {
        done.push({
          name: file.name,
          title,
          player: '',
          problem: reasonOf(error),
        })
      }
      results.value = [...done]
    }
  }

  async function copy(url: string) {
    await navigator.clipboard.writeText(url)
    copied.value = url
  }

  if (current.state === 'loading') return <Loading language={language} />
  if (current.state === 'error') return <LoadProblem language={language} reason={current.reason} onRetry={reload} />
  const places = current.value.filter((place) => place.streams.length)
  return (
    <div class="card" role="group" aria-labelledby="publish-heading">
      <h3 id="publish-heading">{t('publish.title', { count: files.length })}</h3>
      {results.value ? (
        <ul>
          {results.value.map((result) => (
            <li key={result.name}>
              {result.problem ? (
                <p class="problem" role="alert">
                  {t('publish.refused', { name: result.name, reason: result.problem })}
                </p>
              ) : (
                <>
                  <p role="status">{t('publish.done', { title: result.title })}</p>
                  {result.player ? (
                    <p>
                      <a href={result.player}>{result.player}</a>{' '}
                      <button type="button" class="quiet" onClick={() => copy(result.player)}>
                        {t('publish.copy', { title: result.title })}
                      </button>
                      {copied.value === result.player ? <span role="status"> {t('api_key.copied')}</span> : null}
                    </p>
                  ) : null}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : places.length ? (
        <form onSubmit={publish}>
          <label for="publish-stream">{t('publish.stream')}</label>
          <select
            id="publish-stream"
            required
            value={stream.value}
            onChange={(event) => (stream.value = (event.target as HTMLSelectElement).value)}
          >
            <option value="">{t('publish.stream.choose')}</option>
            {places.map((place) => (
              <optgroup key={place.slug} label={place.name}>
                {place.streams.map((option) => (
                  <option key={option.slug} value={option.slug}>
                    {option.title}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <label for="publish-visibility">{t('publish.visibility')}</label>
          <select
            id="publish-visibility"
            value={visibility.value}
            aria-describedby="publish-visibility-hint"
            onChange={(event) =>
              (visibility.value = (event.target as HTMLSelectElement).value as (typeof VISIBILITIES)[number])
            }
          >
            {VISIBILITIES.map((value) => (
              <option key={value} value={value}>
                {t(`publish.visibility.${value}`)}
              </option>
            ))}
          </select>
          <p class="hint" id="publish-visibility-hint">
            {t('publish.visibility.hint')}
          </p>
          <div class="actions">
            <button type="submit">{t('publish.submit', { count: files.length })}</button>
            <button type="button" class="quiet" onClick={onClose}>
              {t('library.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <p>{t('publish.nowhere')}</p>
      )}
      {results.value ? (
        <div class="actions">
          <button type="button" class="quiet" onClick={onClose}>
            {t('publish.close')}
          </button>
        </div>
      ) : null}
    </div>
  )
}
