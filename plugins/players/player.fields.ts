import type { FieldReader } from '../../src/kernel/index.js'
import type { PlayerFamily } from './players.types.js'

/** Longest name of a theme or behavior. */
export const NAME_MAX = 255

/** The fields of a create (name set) or of a partial update (what was sent). */
export interface PlayerChanges<S> {
  name?: string
  settings: Partial<S>
}

/**
 * Reads and checks the fields of `POST` (mode `create`) or `PUT` (mode `update`) for a family,
 * collecting every failure for one 412: `name` first, then the settings in documented order.
 */
export function readPlayerFields<S extends object>(v: FieldReader, family: PlayerFamily<S>): PlayerChanges<S> {
  const name = v.string('name', { required: true, max: NAME_MAX }) ?? undefined
  const settings = family.readSettings(v)
  v.done()
  return { name, settings }
}

/** The entries of `values` that are not undefined (the settings sent). */
export function sent<S extends object>(values: { [K in keyof S]?: S[K] | undefined }): Partial<S> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<S>
}

/**
 * A setting that always has a value: sent empty, there is nothing to clear it to, so it fails
 * (`cannot be empty`) on create as on update, instead of silently taking the default.
 */
export function kept<T>(v: FieldReader, field: string, value: T | null | undefined): T | undefined {
  if (value === null) v.fail(field, 'cannot be empty')
  return value ?? undefined
}

/** A 0/1 setting (`true`/`false` accepted); sent empty, `must be 0 or 1`, as for every flag. */
export function flag(v: FieldReader, field: string): boolean | undefined {
  const value = v.boolean(field)
  if (value === null) v.fail(field, 'must be 0 or 1')
  return value ?? undefined
}
