import { type ObjectRef, type Reader, jsonColumn } from '../../src/kernel/index.js'

/** The subject of accesses named in a path: a user (by username) or a group (by slug). */
export interface Subject {
  kind: 'user' | 'group'
  id: number
  /** Username or group slug, as in the path. */
  name: string
  platformId: number
  platformSlug: string
}

/** One access as lists show it. */
export interface AccessListRow {
  publicId: string
  /** Set for a user's access. */
  username: string | null
  /** Set for a group's access. */
  groupSlug: string | null
  objectKind: string
  objectId: number
  roleSlug: string
}

/** A role, as granting needs it. */
export interface RoleRow {
  id: number
  slug: string
  platformId: number
  permissions: string[]
}

/** One access of a subject, as revoking needs it. */
export interface GrantRow {
  id: number
  object: ObjectRef
  roleSlug: string
  permissions: string[]
}

/** Whose accesses a list shows: a subject's, or an object's (within its platform). */
export type AccessOwner = Subject | { object: ObjectRef; platformId: number }

type Permissions = string | string[]
// PostgreSQL gives json columns parsed, SQLite as text.
const flags = (permissions: Permissions): string[] => jsonColumn<string[]>(permissions)

interface SubjectRow {
  id: number
  name: string
  platform_id: number
  platform_slug: string
  [column: string]: unknown
}

const toSubject = (kind: Subject['kind'], row: SubjectRow | undefined): Subject | undefined =>
  row && {
    kind,
    id: Number(row.id),
    name: row.name,
    platformId: Number(row.platform_id),
    platformSlug: row.platform_slug,
  }

// The owner filter of a list; every access also carries its platform, so an object's list can
// never show a row that points across platforms.
function ownerFilter(owner: AccessOwner): { where: string; params: unknown[] } {
  if ('object' in owner) {
    return {
      where: 'a.object_kind = ? and a.object_id = ? and a.platform_id = ?',
      params: [owner.object.kind, owner.object.id, owner.platformId],
    }
  }
  return { where: `a.${owner.kind}_id = ?`, params: [owner.id] }
}

/** Prepared reads of accesses (committed data), for lists and checks. */
export const accessQueries = {
  async user(reader: Reader, username: string): Promise<Subject | undefined> {
    const row = await reader.one<SubjectRow>(
      `select u.id, u.username as name, u.platform_id, p.slug as platform_slug
       from users u join platforms p on p.id = u.platform_id where u.username = ?`,
      [username],
    )
    return toSubject('user', row)
  },

  async group(reader: Reader, slug: string): Promise<Subject | undefined> {
    const row = await reader.one<SubjectRow>(
      `select g.id, g.slug as name, g.platform_id, p.slug as platform_slug
       from user_groups g join platforms p on p.id = g.platform_id where g.slug = ?`,
      [slug],
    )
    return toSubject('group', row)
  },

  async role(reader: Reader, slug: string): Promise<RoleRow | undefined> {
    const row = await reader.one<{ id: number; slug: string; platform_id: number; permissions: Permissions }>(
      'select id, slug, platform_id, permissions from roles where slug = ?',
      [slug],
    )
    return (
      row && {
        id: Number(row.id),
        slug: row.slug,
        platformId: Number(row.platform_id),
        permissions: flags(row.permissions),
      }
    )
  },

  /** The access `publicId` of this subject, or undefined (also when it belongs to another subject). */
  async grant(reader: Reader, subject: Subject, publicId: string): Promise<GrantRow | undefined> {
    const row = await reader.one<{
      id: number
      object_kind: string
      object_id: number
      slug: string
      permissions: Permissions
    }>(
      `select a.id, a.object_kind, a.object_id, r.slug, r.permissions
       from accesses a join roles r on r.id = a.role_id where a.public_id = ? and a.${subject.kind}_id = ?`,
      [publicId, subject.id],
    )
    return (
      row && {
        id: Number(row.id),
        object: { kind: row.object_kind, id: Number(row.object_id) },
        roleSlug: row.slug,
        permissions: flags(row.permissions),
      }
    )
  },

  async count(reader: Reader, owner: AccessOwner): Promise<number> {
    const { where, params } = ownerFilter(owner)
    return reader.count(`select count(*) as n from accesses a where ${where}`, params)
  },

  /** One page of a list, oldest first (ids grow with creation). */
  async page(reader: Reader, owner: AccessOwner, offset: number, limit: number): Promise<AccessListRow[]> {
    const { where, params } = ownerFilter(owner)
    const rows = await reader.all<{
      public_id: string
      username: string | null
      group_slug: string | null
      object_kind: string
      object_id: number
      role_slug: string
    }>(
      `select a.public_id, u.username, g.slug as group_slug, a.object_kind, a.object_id, r.slug as role_slug
       from accesses a join roles r on r.id = a.role_id
       left join users u on u.id = a.user_id left join user_groups g on g.id = a.group_id
       where ${where} order by a.id limit ? offset ?`,
      [...params, limit, offset],
    )
    return rows.map((row) => ({
      publicId: row.public_id,
      username: row.username,
      groupSlug: row.group_slug,
      objectKind: row.object_kind,
      objectId: Number(row.object_id),
      roleSlug: row.role_slug,
    }))
  },
}
