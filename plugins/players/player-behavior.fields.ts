import type { FieldReader } from '../../src/kernel/index.js'
import { isLanguageCode } from '../../src/shared/iso-codes.js'
import { flag, kept, sent } from './player.fields.js'
import type { BehaviorSettings } from './player-behavior.entity.js'

/** Latest start, in seconds (the column is a 32-bit integer). */
export const START_TIME_MAX = 2_147_483_647

function subtitleLanguage(v: FieldReader): string | null | undefined {
  const value = v.string('subtitle_language')
  if (typeof value === 'string' && !isLanguageCode(value)) {
    v.fail('subtitle_language', 'must be an ISO 639-1 code in lowercase, for example fr')
    return undefined
  }
  return value
}

/** The behavior settings sent; `subtitle_language` sent empty leaves the choice to the player. */
export function readBehaviorSettings(v: FieldReader): Partial<BehaviorSettings> {
  return sent<BehaviorSettings>({
    controls: flag(v, 'controls'),
    autoplay: flag(v, 'autoplay'),
    muted: flag(v, 'muted'),
    loop: flag(v, 'loop'),
    startTime: kept(v, 'start_time', v.integer('start_time', { max: START_TIME_MAX })),
    subtitlesOn: flag(v, 'subtitles_on'),
    subtitleLanguage: subtitleLanguage(v),
  })
}
