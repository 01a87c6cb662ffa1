/** Every profile flag of the spec, per model (Profile section). */
export const PROFILE_FLAGS = {
  instance: ['view'],
  user: ['view', 'create', 'edit', 'delete', 'manage_access'],
  user_role: ['view', 'create', 'edit', 'delete'],
  user_profile: ['view', 'create', 'edit', 'delete'],
  group: ['view', 'create', 'edit', 'delete', 'manage_access'],
  platform: ['view', 'view_protected', 'create', 'edit', 'delete', 'manage_commerce'],
  file: [
    'create',
    'edit',
    'delete',
    'record',
    'private_share',
    'publish_animation',
    'publish_audio',
    'publish_binary',
    'publish_document',
    'publish_image',
    'publish_richmedia',
    'publish_text',
    'publish_video',
    'share',
    'access',
  ],
  folder: ['create'],
  metadata: ['manage'],
  category: ['manage', 'use'],
  tag: ['manage', 'use'],
  analytics: ['view'],
  video_recorder: ['manage', 'use'],
  player_theme: ['create', 'edit', 'delete', 'use'],
  player_behavior: ['create', 'edit', 'delete', 'use'],
  logo: ['manage', 'use'],
  clip: ['manage', 'use'],
} as const satisfies Record<string, readonly string[]>

/** All flags as `model.action` strings. */
export const ALL_PROFILE_FLAGS: string[] = Object.entries(PROFILE_FLAGS).flatMap(([model, actions]) =>
  actions.map((action) => `${model}.${action}`),
)

const everything = (except: string[]): string[] => ALL_PROFILE_FLAGS.filter((flag) => !except.includes(flag))
const FILE_WORK = ALL_PROFILE_FLAGS.filter((f) => f.startsWith('file.') || f === 'folder.create')

export interface DefaultProfile {
  name: string
  permissions: string[]
}

/** Profiles every new platform gets (API-DECISIONS: Authorization). */
export const DEFAULT_PROFILES: DefaultProfile[] = [
  { name: 'Administrator', permissions: everything(['instance.view']) },
  {
    name: 'Publisher',
    permissions: [
      'platform.view',
      'user.view',
      'group.view',
      ...FILE_WORK,
      'category.use',
      'tag.use',
      'video_recorder.use',
      'player_theme.use',
      'player_behavior.use',
      'logo.use',
      'clip.use',
    ],
  },
  { name: 'Viewer', permissions: ['platform.view', 'user.view', 'group.view'] },
]

/** The profile of installation administrators (`mediactl user create --admin`): every flag. */
export const INSTANCE_ADMIN_PROFILE: DefaultProfile = {
  name: 'Installation administrator',
  permissions: ALL_PROFILE_FLAGS,
}
