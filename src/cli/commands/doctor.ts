import { Flags } from '@oclif/core'
import { type Check, doctor } from '../../app/doctor.js'
import { BaseCommand } from '../base-command.js'

const MARKS: Record<Check['status'], string> = { ok: '✓', warn: '!', fail: '✗', skip: '-' }

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary =
    'Check the configuration and every dependency: database, schema, Redis, storage, ffmpeg, ports, instance files.'
  static override description = `Each check runs within --timeout seconds and prints one line: ✓ passed, ! worth a look (passes),
✗ failed, - skipped (it needs a check that failed); a failure or warning says what to do on the next line.
Exits with code 1 when a check failed, 0 otherwise. With --json: {"ok", "checks": [{"name", "status", "ok", "detail", "fix"}]}.`

  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json --timeout 3']

  static override flags = {
    timeout: Flags.integer({
      description: 'Seconds one check may wait for a dependency',
      default: 10,
      min: 1,
      max: 600,
    }),
  }

  async run() {
    const checks = await doctor({
      ...this.configOptions(),
      timeoutMs: this.flags.timeout * 1000,
      onCheck: (check) => {
        if (this.jsonEnabled()) return
        this.log(`${MARKS[check.status]} ${check.name.padEnd(22)} ${check.detail}`)
        if (check.fix && check.status !== 'ok') this.log(`  ${''.padEnd(22)} → ${check.fix}`)
      },
    })
    const ok = checks.every((check) => check.status !== 'fail')
    if (!ok) process.exitCode = 1
    return { ok, checks }
  }
}
