/**
 * The file's metadata: one field per definition of its platform that applies to its type, of the definition's type,
 * read from the file's info and saved with `PUT /file/<slug>` (`metadata[<name>]`; empty clears), as any client does.
 */
import { useSignal } from '@preact/signals'
import { Fragment } from 'preact'
import { type Session, putXml } from './api.js'
import { type T, useAction } from './file-action.js'
import { type FileDetails, type MetadataField, filePath } from './file-data.js'

/** A boolean's value as shown: the API answers `1` or `0`. */
const yesNo = (t: T, value: string): string =>
  value === '1' ? t('file.metadata.yes') : value === '0' ? t('file.metadata.no') : ''

export function FileMetadata(props: { session: Session; t: T; file: FileDetails; onChanged: () => void }) {
  const { session, t, file, onChanged } = props
  const fields = (file.definitions ?? []).filter((field) => field.fileTypes.includes(file.type))
  const values = useSignal<Record<string, string>>({ ...file.values })
  const action = useAction(t)
  const canEdit = session.flags.has('file.edit')

  let body
  if (file.definitions === null) body = <p>{t('file.metadata.unreadable')}</p>
  else if (!fields.length) body = <p>{t('file.metadata.none')}</p>
  else if (!canEdit) {
    body = (
      <dl class="facts">
        {fields.map((field) => (
          <Fragment key={field.name}>
            <dt>{field.name}</dt>
            <dd>
              {(field.type === 'boolean' ? yesNo(t, file.values[field.name] ?? '') : file.values[field.name]) ||
                t('file.metadata.unset')}
            </dd>
          </Fragment>
        ))}
      </dl>
    )
  } else {
    const submit = (event: Event) => {
      event.preventDefault()
      const form: Record<string, string> = {}
      for (const field of fields) form[`metadata[${field.name}]`] = (values.value[field.name] ?? '').trim()
      void action.run(() => putXml(session, filePath(file.slug), form), t('file.metadata.saved'), onChanged)
    }
    body = (
      <form onSubmit={submit}>
        {fields.map((field, index) => (
          <Field
            key={field.name}
            t={t}
            id={`file-metadata-${index}`}
            field={field}
            value={values.value[field.name] ?? ''}
            onChange={(value) => (values.value = { ...values.value, [field.name]: value })}
          />
        ))}
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('file.metadata.save')}
          </button>
        </div>
        {action.outcome}
      </form>
    )
  }
  return (
    <section class="card" aria-labelledby="file-metadata-heading">
      <h2 id="file-metadata-heading">{t('file.metadata')}</h2>
      {body}
    </section>
  )
}

/** One value, in the control of its type; the API checks it (ranges, dates that exist, choices). */
function Field(props: { t: T; id: string; field: MetadataField; value: string; onChange: (value: string) => void }) {
  const { t, id, field, value, onChange } = props
  const changed = (event: Event) => onChange((event.target as HTMLInputElement).value)
  let control
  switch (field.type) {
    case 'longvarchar':
      control = <textarea id={id} maxLength={65535} value={value} onInput={changed} />
      break
    case 'integer':
    case 'bigint':
      control = <input type="number" id={id} step={1} value={value} onInput={changed} />
      break
    case 'date':
      control = <input type="date" id={id} value={value} onInput={changed} />
      break
    case 'boolean':
      control = (
        <select id={id} value={value} onChange={changed}>
          <option value="">{t('file.metadata.unset')}</option>
          <option value="1">{t('file.metadata.yes')}</option>
          <option value="0">{t('file.metadata.no')}</option>
        </select>
      )
      break
    case 'choice':
      control = (
        <select id={id} value={value} onChange={changed}>
          <option value="">{t('file.metadata.unset')}</option>
          {field.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      )
      break
    default:
      control = <input type="text" id={id} maxLength={255} value={value} onInput={changed} />
  }
  return (
    <div>
      <label for={id}>{field.name}</label>
      {control}
    </div>
  )
}
