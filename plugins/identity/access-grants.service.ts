import type { AccessGrantsPort, ObjectRef, Principal, ProcessCache, Reader } from '../../src/kernel/index.js'

type Permissions = string | string[]

// Roles are few and their permission lists repeat on every check: parse each distinct list once.
const parsed = new Map<string, ReadonlySet<string>>()
const PARSED_MAX = 1000

function parse(permissions: Permissions): ReadonlySet<string> {
  if (Array.isArray(permissions)) return new Set(permissions)
  let flags = parsed.get(permissions)
  if (!flags) {
    if (parsed.size >= PARSED_MAX) parsed.clear()
    flags = new Set(JSON.parse(permissions) as string[])
    parsed.set(permissions, flags)
  }
  return flags
}

const NONE: ReadonlySet<string> = new Set()

// The accesses of a user: their own, and those of every group they belong to. Only rows whose
// access, role and group are all of the user's platform count: a row pointing across platforms
// (which the API never writes) grants nothing. The lookup is driven by the object (or subject)
// index: the unary `+` keeps the planner from scanning every access of the platform, and the
// correlated EXISTS probes one membership instead of building the user's group list each time.
const SUBJECT = `(a.user_id = ? or (a.group_id is not null and exists (select 1 from group_members m
  join user_groups g on g.id = m.group_id where m.group_id = a.group_id and m.user_id = ? and +g.platform_id = ?)))
  and +a.platform_id = ? and +r.platform_id = ?`
const subjectParams = (user: Principal): number[] => [
  user.id,
  user.id,
  user.platformId,
  user.platformId,
  user.platformId,
]

/** What a user is, for the accesses: themselves, in their platform (group memberships are read with the grants). */
const subjectKey = (user: Principal): string => `${user.id}/${user.platformId}`

/**
 * Role flags from accesses, each lookup one prepared query through the kernel reader, kept in
 * `cache` until accesses, roles or group memberships change.
 */
export function accessGrantsPort(
  reader: Reader,
  cache: ProcessCache<ReadonlySet<string> | number[]>,
): AccessGrantsPort {
  const lookUp = grantsOf(reader)
  return {
    roleFlags: (user, objects) =>
      cache.get(`flags ${subjectKey(user)} ${objects.map((o) => `${o.kind}:${o.id}`).join(',')}`, () =>
        lookUp.roleFlags(user, objects),
      ) as Promise<ReadonlySet<string>>,
    objectsWith: (user, kind, flag) =>
      cache.get(`objects ${subjectKey(user)} ${kind} ${flag}`, () => lookUp.objectsWith(user, kind, flag)) as Promise<
        number[]
      >,
  }
}

function grantsOf(reader: Reader): AccessGrantsPort {
  return {
    async roleFlags(user: Principal, objects: readonly ObjectRef[]): Promise<ReadonlySet<string>> {
      if (objects.length === 0) return NONE
      const targets = objects.map(() => '(a.object_kind = ? and a.object_id = ?)').join(' or ')
      // No `distinct`: PostgreSQL cannot compare json values; duplicates merge in the set below.
      const rows = await reader.all<{ permissions: Permissions }>(
        `select r.permissions from accesses a join roles r on r.id = a.role_id
         where ${SUBJECT} and (${targets})`,
        [...subjectParams(user), ...objects.flatMap((o) => [o.kind, o.id])],
      )
      // One granting role is the common case: its shared set is the answer (callers only read it).
      if (rows.length <= 1) return rows[0] ? parse(rows[0].permissions) : NONE
      const flags = new Set<string>()
      for (const row of rows) for (const flag of parse(row.permissions)) flags.add(flag)
      return flags
    },

    async objectsWith(user: Principal, kind: string, flag: string): Promise<number[]> {
      const rows = await reader.all<{ object_id: number; permissions: Permissions }>(
        `select a.object_id, r.permissions from accesses a join roles r on r.id = a.role_id
         where ${SUBJECT} and a.object_kind = ?`,
        [...subjectParams(user), kind],
      )
      return [...new Set(rows.filter((row) => parse(row.permissions).has(flag)).map((row) => Number(row.object_id)))]
    },
  }
}
