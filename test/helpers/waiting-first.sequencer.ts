import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Vitest's order, with the conformance files first. With no durations recorded yet (a fresh clone, as in CI), vitest
 * starts the largest files first; a conformance file is a few lines running a shared suite, yet among the longest
 * (leases, retries and timers that mostly wait), so they started last and left the cores idle for the last 20 s of the
 * suite. Started first, their waits overlap the other files' work.
 */
export default class WaitingFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const waiting = (file: TestSpecification): boolean => file.moduleId.includes('/test/conformance/')
    return [...sorted.filter(waiting), ...sorted.filter((file) => !waiting(file))]
  }
}
