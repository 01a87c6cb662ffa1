/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two words. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The candidate a mistyped name most likely meant, or undefined when none is close enough
 * (a third of the name's length, at least 2 edits): an error that says `did you mean
 * "bullmq"?` fixes a typo in one step, a wild guess would mislead.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const word = name.toLowerCase()
  let best: { candidate: string; cost: number } | undefined
  for (const candidate of candidates) {
    const cost = distance(word, candidate.toLowerCase())
    if (!best || cost < best.cost) best = { candidate, cost }
  }
  return best && best.cost <= Math.max(2, Math.floor(name.length / 3)) ? best.candidate : undefined
}

/** ` (did you mean "x"?)`, or nothing when no candidate is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const guess = closest(name, candidates)
  return guess === undefined ? '' : ` (did you mean "${guess}"?)`
}
