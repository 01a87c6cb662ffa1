import type { FieldErrors, FieldReader } from '../../src/kernel/index.js'
import { CHANNEL_TEXT_MAX } from './channel.entity.js'
import type { ChannelTypes } from './channel-type.registry.js'
import { CHANNEL_TYPE_WORD } from './channel.types.js'

/** The channel fields a request may send; undefined: not sent, null: sent empty (cleared). */
export interface ChannelInput {
  name?: string
  /** Lowercased. */
  type?: string
  isOnline?: boolean
  theme?: string | null
  skin?: string | null
}

/** What a channel is now, for the rules of an update. */
export type CurrentChannel = { type: string; theme: string | null; skin: string | null }

const THEMING = ['theme', 'skin'] as const

/**
 * Reads and checks the fields of `POST /media/<slug>/channels` (`create`: name and type
 * required) or of a partial update, collecting every failure for one 412. Types are compared
 * and stored lowercase.
 */
export function readChannelFields(v: FieldReader): ChannelInput {
  const input: ChannelInput = {}
  input.name = v.string('name', { required: true, max: CHANNEL_TEXT_MAX }) ?? undefined
  const type = v.string('type', {
    required: true,
    max: CHANNEL_TEXT_MAX,
    pattern: {
      regex: CHANNEL_TYPE_WORD,
      message: 'must be one word of letters, digits, - and _ (web, widget, api, syndication, ...)',
    },
  })
  if (type) input.type = type.toLowerCase()
  const isOnline = v.boolean('is_online')
  // Sent empty: there is nothing to clear a flag to, so say what is expected.
  if (isOnline === null) v.fail('is_online', 'must be 0 or 1')
  else if (isOnline !== undefined) input.isOnline = isOnline
  for (const field of THEMING) {
    const value = v.string(field, { max: CHANNEL_TEXT_MAX })
    if (value !== undefined) input[field] = value
  }
  v.done()
  return input
}

const either = (words: string[]): string => (words.length ? words.join(' or ') : 'themed')

/**
 * Theme and skin belong to themed types (web) only: sent with a value for another type, the
 * field fails; a type change that would leave a kept theme or skin on a type without them
 * fails on `type` (send theme and skin empty in the same request). `current` is undefined
 * on create. Empty when all is well.
 */
export function checkTheming(
  current: CurrentChannel | undefined,
  input: ChannelInput,
  types: ChannelTypes,
): FieldErrors {
  const type = input.type ?? current?.type
  if (type === undefined || types.themed(type)) return {}
  const errors: FieldErrors = {}
  const themed = either(types.themedWords())
  for (const field of THEMING) {
    if (typeof input[field] === 'string') errors[field] = `only ${themed} channels have a ${field}`
  }
  const changing = current !== undefined && input.type !== undefined && input.type !== current.type
  const kept = THEMING.filter((field) => input[field] === undefined && current?.[field])
  if (changing && kept.length && !Object.keys(errors).length) {
    errors.type = `cannot become ${type} while the channel has a ${kept.join(' and a ')} (only ${themed} channels have them): send ${kept.join(' and ')} empty in the same request`
  }
  return errors
}

/** Whether the request changes the theme or the skin (which needs `media.change_theme`). */
export function changesTheming(current: CurrentChannel | undefined, input: ChannelInput): boolean {
  return THEMING.some((field) => input[field] !== undefined && (input[field] ?? null) !== (current?.[field] ?? null))
}
