/** The largest width or height of a widget, in pixels (an 8K frame's width). */
export const SIZE_MAX = 7680

/** A widget's frame, in pixels. */
export interface WidgetSize {
  width: number
  height: number
}

/** The outcome of `parseSize`: the size, or what is wrong with the text. */
export type ParsedSize = { ok: true; size: WidgetSize } | { ok: false; error: string }

const FORMAT = /^(\d+)[xX](\d+)$/

/**
 * The size of `WIDTHxHEIGHT` (trimmed text): two whole numbers of pixels from 1 to
 * `SIZE_MAX`, separated by `x` (an `X` is accepted too). No signs, spaces or units.
 */
export function parseSize(text: string): ParsedSize {
  const match = FORMAT.exec(text)
  if (!match) return { ok: false, error: 'must be WIDTHxHEIGHT in pixels, such as 640x360' }
  // Number, not parseInt: a long digit string becomes a huge number, caught by the bounds below.
  const [width, height] = [Number(match[1]), Number(match[2])]
  if (width < 1 || width > SIZE_MAX || height < 1 || height > SIZE_MAX) {
    return { ok: false, error: `must have a width and a height from 1 to ${SIZE_MAX} pixels, such as 640x360` }
  }
  return { ok: true, size: { width, height } }
}

/** `640x360`, the form every answer shows. */
export const formatSize = (size: WidgetSize): string => `${size.width}x${size.height}`
