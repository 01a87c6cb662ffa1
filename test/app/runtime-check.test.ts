import { describe, expect, it } from 'vitest'
import { runtimeCheck, sqliteHeadersVersion } from '../../src/app/runtime-check.js'

/** doctor's `node.js` line: the supported releases, and the Node 24 headers better-sqlite3 12.x must not be built with. */
describe('runtimeCheck', () => {
  it('passes the supported releases, noting that Node 20 is past its end of life', () => {
    expect(runtimeCheck('22.12.0', () => undefined)).toEqual({ status: 'ok', detail: 'Node.js 22.12.0' })
    expect(runtimeCheck('24.18.1', () => '24.18.1')).toEqual({ status: 'ok', detail: 'Node.js 24.18.1' })
    expect(runtimeCheck('20.19.0', () => undefined)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('end of life'),
    })
  })

  it('warns on a release outside engines, naming the ones to run', () => {
    for (const version of ['18.20.4', '20.18.1', '21.7.3', '23.11.0', '25.2.0']) {
      const outcome = runtimeCheck(version, undefined)
      expect(outcome.status, version).toBe('warn')
      expect(outcome.detail).toBe(`Node.js ${version}, not a supported release`)
      expect(outcome.fix).toContain('22 or 24')
    }
  })

  it('on Node 24.19+, warns unless the SQLite module was built against older headers, saying how to rebuild', () => {
    expect(runtimeCheck('24.21.0', () => '24.18.1')).toEqual({
      status: 'ok',
      detail: 'Node.js 24.21.0 (SQLite module built against 24.18.1 headers)',
    })
    for (const headers of ['24.21.0', '24.19.0', undefined]) {
      const outcome = runtimeCheck('24.21.0', () => headers)
      expect(outcome.status, String(headers)).toBe('warn')
      expect(outcome.fix).toContain('npm_config_target=24.18.1 npm rebuild better-sqlite3')
    }
    expect(runtimeCheck('24.21.0', () => undefined).detail).toContain('unknown')
  })

  it('reads the headers release of the installed module (built from source here)', () => {
    expect(sqliteHeadersVersion()).toMatch(/^\d+\.\d+\.\d+$/)
  })
})
