import { type XmlNode, xml } from '../../src/kernel/index.js'
import type { FlagCatalogue } from './permission-form.js'

/**
 * The flag table of role and profile info: `<permissions>` with one element per model of
 * the catalogue (snake_case, as the spec's tables name them), holding one element per
 * action, 1 when granted and 0 when not. Every flag of the catalogue is shown, so clients
 * never have to guess a default.
 */
export function permissionsXml(catalogue: FlagCatalogue, granted: readonly string[]): XmlNode {
  const set = new Set(granted)
  return xml.el(
    'permissions',
    undefined,
    Object.entries(catalogue).map(([model, actions]) =>
      xml.el(
        model,
        undefined,
        actions.map((action) => xml.flag(action, set.has(`${model}.${action}`))),
      ),
    ),
  )
}
