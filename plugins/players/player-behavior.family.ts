import { xml } from '../../src/kernel/index.js'
import { languageName } from '../../src/shared/iso-codes.js'
import { DEFAULT_BEHAVIOR, DEFAULT_BEHAVIORS } from './player.defaults.js'
import { playerQueries, textOrNull } from './player.queries.js'
import { type BehaviorSettings, PlayerBehaviorEntity } from './player-behavior.entity.js'
import { readBehaviorSettings } from './player-behavior.fields.js'
import type { PlayerFamily, PlayerView } from './players.types.js'

/** A player behavior as the reads give it: `{ id, slug, name, platformId, platformSlug, ...BehaviorSettings }`. */
export type PlayerBehaviorView = PlayerView<BehaviorSettings>

/** Prepared reads of player behaviors (committed data): plain views, settings in camelCase. */
export const playerBehaviorQueries = playerQueries<BehaviorSettings>(
  'player_behaviors',
  't.controls, t.autoplay, t.muted, t.loop, t.start_time, t.subtitles_on, t.subtitle_language',
  // SQLite answers booleans as 0/1, PostgreSQL as true/false.
  (row) => ({
    controls: Boolean(row.controls),
    autoplay: Boolean(row.autoplay),
    muted: Boolean(row.muted),
    loop: Boolean(row.loop),
    startTime: Number(row.start_time),
    subtitlesOn: Boolean(row.subtitles_on),
    subtitleLanguage: textOrNull(row.subtitle_language),
  }),
)

/** Player behaviors: how the player plays. */
export const BEHAVIORS: PlayerFamily<BehaviorSettings> = {
  kind: 'player_behavior',
  plural: 'player_behaviors',
  param: 'behavior',
  label: 'player behavior',
  entity: PlayerBehaviorEntity,
  queries: playerBehaviorQueries,
  readSettings: readBehaviorSettings,
  settingsXml: (s) => [
    xml.flag('controls', s.controls),
    xml.flag('autoplay', s.autoplay),
    xml.flag('muted', s.muted),
    xml.flag('loop', s.loop),
    xml.num('start_time', s.startTime),
    xml.flag('subtitles_on', s.subtitlesOn),
    // The English name, as for a user's language (API-DECISIONS); the code, which requests send, in `code`.
    s.subtitleLanguage
      ? xml.str('subtitle_language', languageName(s.subtitleLanguage), { code: s.subtitleLanguage })
      : xml.str('subtitle_language', null),
  ],
  defaults: DEFAULT_BEHAVIOR,
  seeds: DEFAULT_BEHAVIORS,
}
