import type { ObjectRef } from '../authz/object-kinds.js'
import type { Principal } from './credentials.port.js'

/**
 * Where role flags come from: the accesses (a role granted to a user or a group on an
 * object). Provided by the identity plugin; called by the authorization service, once per
 * check, so each member should be one indexed query.
 */
export interface AccessGrantsPort {
  /**
   * Role flags (`model.action`, for example `stream.edit`) the user holds through accesses,
   * their own and their groups', on any of `objects` (an object and its ancestors).
   */
  roleFlags(user: Principal, objects: readonly ObjectRef[]): Promise<ReadonlySet<string>>
  /** Ids of the objects of `kind` on which one of the user's accesses (own or group) grants `flag`. */
  objectsWith(user: Principal, kind: string, flag: string): Promise<number[]>
}
