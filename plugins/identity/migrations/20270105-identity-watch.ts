import { watchMigration } from '../../../src/kernel/index.js'

/** The tables behind credentials and role flags: their changes reach every process's caches. */
export default watchMigration('20270105-identity-watch', [
  'users',
  'profiles',
  'roles',
  'accesses',
  'user_groups',
  'group_members',
])
