import type { ProbeResult } from '../../src/kernel/index.js'

/**
 * The filters that turn a stored picture upright (mirror first, then rotate clockwise), as
 * EXIF orientation describes. Used with `-noautorotate` on pictures, so the result is the
 * same whether the ffmpeg build reads EXIF orientation itself (recent ones) or not (older).
 * Videos keep ffmpeg's own autorotation, which every build applies to the display matrix.
 */
export function uprightFilters(probe: Pick<ProbeResult, 'rotation' | 'mirrored'>): string[] {
  const filters = probe.mirrored ? ['hflip'] : []
  switch (probe.rotation ?? 0) {
    case 90:
      filters.push('transpose=1')
      break
    case 180:
      filters.push('hflip', 'vflip')
      break
    case 270:
      filters.push('transpose=2')
      break
  }
  return filters
}
