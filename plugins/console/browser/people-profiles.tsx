/** The profiles a caller may give a user (creating one, or changing theirs): a hook and a select. */
import { useLoad } from './load.js'
import { type FlagSet, holdsAll, loadFlagSets } from './people-data.js'
import type { TabProps } from './people-parts.js'

/** The profiles of the platform the caller may give (they hold each of its flags). */
export function useGivableProfiles(props: TabProps) {
  const { session, platform } = props
  return useLoad(async () =>
    (await loadFlagSets(session, platform, 'profile'))
      .filter((profile) => holdsAll(session, 'profile', profile))
      // The least powerful first: the one a slip of the hand gives.
      .sort((a, b) => a.granted.length - b.granted.length),
  )
}

/** A select of the profiles the caller may give. */
export function ProfileSelect(props: { id: string; label: string; profiles: FlagSet[]; value?: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name="profile" required value={props.value}>
        {props.profiles.map((profile) => (
          <option key={profile.slug} value={profile.slug}>
            {profile.name}
          </option>
        ))}
      </select>
    </div>
  )
}
