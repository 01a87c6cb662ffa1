import { doctor } from '../../app/doctor.js'
import { BaseCommand } from '../base-command.js'

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary =
    'Check config, database, migrations, the storage backend, instance files, the data dir and ffmpeg.'
  static override description = 'Exits with code 1 when a check fails; each failure says how to fix it.'

  async run() {
    const checks = await doctor(this.configOptions())
    for (const check of checks) {
      this.log(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(10)} ${check.detail}`)
      if (!check.ok && check.fix) this.log(`      ${''.padEnd(10)} fix: ${check.fix}`)
    }
    const failed = checks.filter((c) => !c.ok)
    if (failed.length) process.exitCode = 1
    return { ok: failed.length === 0, checks }
  }
}
