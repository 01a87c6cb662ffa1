import { afterEach, describe, expect, it } from 'vitest'
import { MemoryNonceCounter } from '../../src/kernel/http/nonce-counter.memory.js'
import { NONCE_COUNT_WINDOW } from '../../src/kernel/ports/nonce-counter.port.js'

describe('MemoryNonceCounter', () => {
  const counter = new MemoryNonceCounter()
  afterEach(() => undefined)

  it('accepts each count once per nonce', async () => {
    expect(await counter.advance('a', 1, 60)).toBe(true)
    expect(await counter.advance('a', 1, 60)).toBe(false)
    expect(await counter.advance('b', 1, 60)).toBe(true)
  })

  it('accepts counts that arrive out of order within the window, once', async () => {
    expect(await counter.advance('c', 5, 60)).toBe(true)
    expect(await counter.advance('c', 3, 60)).toBe(true)
    expect(await counter.advance('c', 4, 60)).toBe(true)
    expect(await counter.advance('c', 3, 60)).toBe(false)
    expect(await counter.advance('c', 5, 60)).toBe(false)
  })

  it(`refuses counts ${NONCE_COUNT_WINDOW} or more below the highest seen`, async () => {
    expect(await counter.advance('d', 100, 60)).toBe(true)
    expect(await counter.advance('d', 100 - NONCE_COUNT_WINDOW, 60)).toBe(false)
    expect(await counter.advance('d', 100 - NONCE_COUNT_WINDOW + 1, 60)).toBe(true)
  })
})
