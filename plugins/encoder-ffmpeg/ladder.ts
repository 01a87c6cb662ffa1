import type { Rung } from './encoder.config.js'

/** A size in pixels. */
export interface Size {
  width: number
  height: number
}

/** A rung chosen for one source, with the frame size it gets. */
export interface PlannedRung extends Size {
  rung: Rung
}

/** The largest even number not above `value` (at least 2): H.264 in 4:2:0 needs even sizes. */
export function evenFloor(value: number): number {
  return Math.max(2, Math.floor(value / 2) * 2)
}

/**
 * `source` fitted inside `box` keeping its aspect ratio, never enlarged; in even pixels
 * unless `even` is false (JPEG takes any size).
 */
export function fitInside(source: Size, box: Size, even = true): Size {
  const scale = Math.min(box.width / source.width, box.height / source.height, 1)
  if (!even) {
    const round = (value: number, limit: number): number => Math.min(limit, Math.max(1, Math.round(value)))
    return { width: round(source.width * scale, box.width), height: round(source.height * scale, box.height) }
  }
  if (scale === 1) return { width: evenFloor(source.width), height: evenFloor(source.height) }
  const round = (value: number, limit: number): number =>
    Math.min(evenFloor(limit), Math.max(2, Math.round(value / 2) * 2))
  return { width: round(source.width * scale, box.width), height: round(source.height * scale, box.height) }
}

/** The rung's box turned to the source's orientation: a portrait source is fitted in height × width. */
function boxOf(rung: Rung, portrait: boolean): Size {
  return portrait ? { width: rung.height, height: rung.width } : { width: rung.width, height: rung.height }
}

function holds(box: Size, source: Size): boolean {
  return source.width <= box.width && source.height <= box.height
}

/**
 * The rungs a source gets, largest first. A rung is kept when the source overflows the box
 * of the next smaller rung (so this rung shows more of it); a rung whose picture would only
 * repeat a smaller one at the same size is dropped. The smallest rung is always kept: a
 * source smaller than it is encoded once, at its own size.
 */
export function planLadder(ladder: readonly Rung[], source: Size): PlannedRung[] {
  const portrait = source.height > source.width
  const rungs = [...ladder].sort((a, b) => b.width * b.height - a.width * a.height)
  const planned: PlannedRung[] = []
  for (const [position, rung] of rungs.entries()) {
    const smaller = rungs[position + 1]
    if (smaller && holds(boxOf(smaller, portrait), source)) continue
    planned.push({ rung, ...fitInside(source, boxOf(rung, portrait)) })
  }
  return planned
}
