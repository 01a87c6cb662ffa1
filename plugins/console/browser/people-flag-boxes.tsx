/**
 * A role's or profile's flags as checkboxes, one fieldset per model. A flag the caller does not hold is shown but not
 * offered (disabled): it keeps its value (docs/authorization.md, "No escalation").
 */
import type { FlagModel } from './people-data.js'

export const flagField = (model: string, action: string): string => `permission[${model}][${action}]`

export function FlagBoxes(props: {
  idPrefix: string
  models: FlagModel[]
  granted: ReadonlySet<string>
  offered: (flag: string) => boolean
}) {
  const { idPrefix, models, granted, offered } = props
  return (
    <div class="flags">
      {models.map(({ model, actions }) => (
        <fieldset key={model}>
          <legend>{model}</legend>
          <ul class="plain">
            {actions.map((action) => {
              const flag = `${model}.${action}`
              const id = `${idPrefix}-${model}-${action}`
              return (
                <li key={flag}>
                  <label for={id}>
                    <input
                      type="checkbox"
                      id={id}
                      name={flagField(model, action)}
                      value="1"
                      checked={granted.has(flag)}
                      disabled={!offered(flag)}
                    />
                    <code>{flag}</code>
                  </label>
                </li>
              )
            })}
          </ul>
        </fieldset>
      ))}
    </div>
  )
}

/** The flags a submitted form grants: the boxes offered as ticked, the others as they were. */
export function grantedIn(
  data: FormData,
  models: FlagModel[],
  granted: ReadonlySet<string>,
  offered: (flag: string) => boolean,
): Set<string> {
  const result = new Set<string>()
  for (const { model, actions } of models) {
    for (const action of actions) {
      const flag = `${model}.${action}`
      if (offered(flag) ? data.has(flagField(model, action)) : granted.has(flag)) result.add(flag)
    }
  }
  return result
}
