import { FieldReader, type Form, type FormValue } from '../../src/kernel/index.js'

/** A flag catalogue: model (snake_case, as in responses) → its actions (ROLE_FLAGS, PROFILE_FLAGS). */
export type FlagCatalogue = Readonly<Record<string, readonly string[]>>

/** Flags sent in a request: `model.action` → granted (1) or not (0). */
export type SentFlags = Map<string, boolean>

/** The request spelling of a model: `user_role` → `UserRole` (spec: models are capitalized). */
export function modelName(model: string): string {
  return model
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')
}

// Models are matched ignoring case and underscores, so `UserRole`, `userrole` and `user_role`
// all name the same model: clients of the original service capitalized them, others may not.
const modelKey = (name: string): string => name.toLowerCase().replaceAll('_', '')

function isForm(value: FormValue | undefined): value is Exclude<FormValue, string | string[]> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function listNames(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '')
}

/**
 * The kernel's flag rule (0/1, true/false) applied to one nested value under its full field
 * name; a value sent empty is no flag at all, so it fails too.
 */
function readFlag(v: FieldReader, field: string, value: FormValue): boolean | undefined {
  const one = new FieldReader({ [field]: value } as Form, v.mode)
  const granted = one.boolean(field)
  for (const [name, message] of Object.entries(one.errors)) v.fail(name, message)
  if (granted === null) v.fail(field, 'must be 0 or 1')
  return granted ?? undefined
}

const SHAPE = 'must be sent as permission[<Model>][<action>]'

/**
 * Reads the `permission[<Model>][<action>]` fields of a form against a catalogue. Every
 * problem is recorded on the FieldReader under the field name as sent (for example
 * `permission[Media][fly]`), so one 412 lists them with the other fields. Values are the
 * kernel's flags: 0 or 1 (also `false`/`true`).
 */
export function readPermissions(v: FieldReader, catalogue: FlagCatalogue): SentFlags {
  const sent: SentFlags = new Map()
  const value = v.form.permission
  if (value === undefined) return sent
  if (!isForm(value)) {
    v.fail('permission', SHAPE)
    return sent
  }
  const models = new Map(Object.keys(catalogue).map((model) => [modelKey(model), model]))
  const known = Object.keys(catalogue).map(modelName)
  for (const [sentModel, actions] of Object.entries(value)) {
    const prefix = `permission[${sentModel}]`
    if (!isForm(actions)) {
      v.fail(prefix, SHAPE)
      continue
    }
    const model = models.get(modelKey(sentModel))
    for (const [sentAction, flag] of Object.entries(actions)) {
      const field = `${prefix}[${sentAction}]`
      if (model === undefined) {
        v.fail(field, `unknown model: use ${listNames(known)}`)
        continue
      }
      const action = sentAction.toLowerCase()
      if (!catalogue[model]!.includes(action)) {
        v.fail(field, `unknown action: ${modelName(model)} has ${listNames([...catalogue[model]!])}`)
        continue
      }
      const granted = readFlag(v, field, flag)
      if (granted !== undefined) sent.set(`${model}.${action}`, granted)
    }
  }
  return sent
}

/**
 * The flags to store after a create (`current` empty) or a partial update: `current` with
 * the sent flags set or cleared, then the implied-view rule (API-DECISIONS: granting any
 * flag of a model grants its `view`, for every model that has one), in catalogue order.
 * The implied view wins over a `view` sent as 0 while another flag of the model stays.
 */
export function applyPermissions(catalogue: FlagCatalogue, current: Iterable<string>, sent: SentFlags): string[] {
  const granted = new Set(current)
  for (const [flag, on] of sent) {
    if (on) granted.add(flag)
    else granted.delete(flag)
  }
  for (const flag of [...granted]) {
    const model = flag.slice(0, flag.indexOf('.'))
    if (catalogue[model]?.includes('view')) granted.add(`${model}.view`)
  }
  return Object.entries(catalogue).flatMap(([model, actions]) =>
    actions.map((action) => `${model}.${action}`).filter((flag) => granted.has(flag)),
  )
}
