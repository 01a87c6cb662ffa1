import { setTimeout as sleep } from 'node:timers/promises'

export interface WaitOptions {
  /** Milliseconds before giving up (bounds a failure only; a passing wait returns as soon as it holds). */
  timeout?: number
  /** Milliseconds between two checks. */
  interval?: number
  /** What is awaited, for the error message; a function is called when the wait fails (the last state seen). */
  message?: string | (() => string)
}

/**
 * Waits until `predicate` holds (a condition, never a fixed sleep): checks it every
 * `interval` ms and throws once `timeout` ms have passed without it holding.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  { timeout = 10_000, interval = 25, message = 'a condition' }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await predicate()) return
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeout} ms waiting for ${typeof message === 'function' ? message() : message}`,
      )
    }
    await sleep(interval)
  }
}
