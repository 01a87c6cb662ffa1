/** Every role flag of the spec, per model (Role section); models are capitalized in requests. */
export const ROLE_FLAGS = {
  platform: ['view', 'view_protected', 'create', 'edit', 'delete'],
  media: ['view', 'view_protected', 'create', 'edit', 'delete', 'change_theme', 'manage_access'],
  stream: ['view', 'view_protected', 'create', 'edit', 'delete', 'change_theme', 'manage_access'],
  resource: ['view', 'view_protected', 'create', 'edit', 'delete', 'activate_rating', 'export'],
} as const satisfies Record<string, readonly string[]>

/** All role flags as `model.action` strings. */
export const ALL_ROLE_FLAGS: string[] = Object.entries(ROLE_FLAGS).flatMap(([model, actions]) =>
  actions.map((action) => `${model}.${action}`),
)

const only = (actions: string[]): string[] => ALL_ROLE_FLAGS.filter((flag) => actions.includes(flag.split('.')[1]!))

export interface DefaultRole {
  name: string
  permissions: string[]
}

/** Roles every new platform gets (API-DECISIONS: Authorization). */
export const DEFAULT_ROLES: DefaultRole[] = [
  { name: 'Manager', permissions: ALL_ROLE_FLAGS },
  {
    name: 'Editor',
    permissions: only(['view', 'view_protected', 'create', 'edit', 'change_theme', 'activate_rating', 'export']),
  },
  { name: 'Viewer', permissions: only(['view']) },
]
