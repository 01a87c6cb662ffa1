import { HttpError } from '../http/errors.js'
import type { Principal } from '../ports/credentials.port.js'

/** The profile flag that makes a user an installation administrator. */
export const INSTANCE_ADMIN_FLAG = 'instance.view'

/** Whether the user holds a profile flag (`model.action`); installation administrators hold all. */
export function hasFlag(user: Principal, flag: string): boolean {
  return user.flags.has(flag) || user.flags.has(INSTANCE_ADMIN_FLAG)
}

export function isInstanceAdmin(user: Principal): boolean {
  return user.flags.has(INSTANCE_ADMIN_FLAG)
}

/** Throws 403 unless the user holds the flag. */
export function requireFlag(user: Principal, flag: string): void {
  if (!hasFlag(user, flag)) throw new HttpError(403, `This needs the "${flag}" permission of your profile.`)
}
