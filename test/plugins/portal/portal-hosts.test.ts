import { describe, expect, it } from 'vitest'
import { HostCache, portalPrefix } from '../../../plugins/portal/portal.hosts.js'

/** The cache of host lookups: answers kept for the TTL, misses included, bounded in size. */
describe('the host lookup cache', () => {
  const counting = () => {
    const calls: string[] = []
    const load = (host: string) => {
      calls.push(host)
      return Promise.resolve(host.endsWith('.tv') ? portalPrefix(host.split('.')[0]!) : null)
    }
    return { calls, load }
  }

  it('keeps answers and misses for the TTL, then looks again', async () => {
    let now = 0
    const cache = new HostCache<string | null>(5000, () => now)
    const { calls, load } = counting()
    expect(await cache.get('campus.tv', load)).toBe('/portal/campus')
    expect(await cache.get('unknown.example', load)).toBeNull()
    now = 4999
    expect(await cache.get('campus.tv', load)).toBe('/portal/campus')
    expect(await cache.get('unknown.example', load)).toBeNull()
    expect(calls).toEqual(['campus.tv', 'unknown.example'])
    now = 5000
    await cache.get('campus.tv', load)
    expect(calls).toEqual(['campus.tv', 'unknown.example', 'campus.tv'])
  })

  it('looks up every time with a TTL of 0', async () => {
    const cache = new HostCache<string | null>(0)
    const { calls, load } = counting()
    for (let i = 0; i < 3; i++) await cache.get('campus.tv', load)
    expect(calls).toHaveLength(3)
  })

  it('holds at most its size, dropping the oldest entry first', async () => {
    const cache = new HostCache<string | null>(60_000, () => 0, 3)
    const { calls, load } = counting()
    for (const host of ['a.tv', 'b.tv', 'c.tv', 'd.tv']) await cache.get(host, load)
    await cache.get('d.tv', load)
    await cache.get('b.tv', load)
    expect(calls).toEqual(['a.tv', 'b.tv', 'c.tv', 'd.tv'])
    await cache.get('a.tv', load)
    expect(calls.at(-1)).toBe('a.tv')
    expect(calls).toHaveLength(5)
  })
})
