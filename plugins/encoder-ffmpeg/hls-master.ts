import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** One variant of the HLS rendition: the folder `<name>/` holding `index.m3u8` and its segments. */
export interface HlsVariant {
  name: string
  width: number
  height: number
  /** The RFC 6381 codecs (`avc1.64001f,mp4a.40.2`), or null when unknown. */
  codecs: string | null
}

/** The name of each variant's playlist in its folder. */
export const VARIANT_PLAYLIST = 'index.m3u8'
/** The name of the master playlist in the HLS folder. */
export const MASTER_PLAYLIST = 'master.m3u8'

const PROFILES: Record<string, string> = {
  'Constrained Baseline': '42e0',
  Baseline: '4200',
  Main: '4d00',
  High: '6400',
}

/** RFC 6381 codecs of an H.264 stream (from ffprobe's profile and level) with AAC-LC sound, or null. */
export function codecsOf(video: { profile?: string; level?: number }, withAudio: boolean): string | null {
  const profile = PROFILES[video.profile ?? '']
  if (!profile || !video.level || video.level <= 0) return null
  const avc = `avc1.${profile}${video.level.toString(16).padStart(2, '0')}`
  return withAudio ? `${avc},mp4a.40.2` : avc
}

/** Peak and average bits per second of a variant, from its playlist's segments and their sizes. */
async function bandwidth(folder: string): Promise<{ peak: number; average: number }> {
  const playlist = await readFile(join(folder, VARIANT_PLAYLIST), 'utf8')
  const segments: { seconds: number; bytes: number }[] = []
  let seconds: number | null = null
  for (const line of playlist.split('\n').map((text) => text.trim())) {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line)
    if (extinf) seconds = Number(extinf[1])
    else if (line && !line.startsWith('#') && seconds !== null) {
      // Segment names are the muxer's own (`seg-00001.ts`), relative to the playlist.
      segments.push({ seconds, bytes: (await stat(join(folder, line))).size })
      seconds = null
    }
  }
  const totalSeconds = segments.reduce((sum, segment) => sum + segment.seconds, 0)
  const totalBytes = segments.reduce((sum, segment) => sum + segment.bytes, 0)
  const average = totalSeconds > 0 ? (totalBytes * 8) / totalSeconds : 0
  // A very short last segment says little about the rate; it is left out of the peak.
  const longest = Math.max(0, ...segments.map((segment) => segment.seconds))
  const peak = Math.max(
    average,
    ...segments
      .filter((segment) => segment.seconds >= longest / 2)
      .map((segment) => (segment.bytes * 8) / segment.seconds),
  )
  return { peak: Math.ceil(peak), average: Math.ceil(average) }
}

/**
 * Writes the master playlist of the HLS folder `hlsDir`, largest variant first, with the
 * measured peak (BANDWIDTH) and average (AVERAGE-BANDWIDTH) rates players choose by.
 * Segments start on keyframes forced at the same instants in every variant, hence
 * EXT-X-INDEPENDENT-SEGMENTS.
 */
export async function writeMasterPlaylist(hlsDir: string, variants: readonly HlsVariant[]): Promise<void> {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS']
  for (const variant of variants) {
    const { peak, average } = await bandwidth(join(hlsDir, variant.name))
    const attributes = [
      `BANDWIDTH=${peak}`,
      `AVERAGE-BANDWIDTH=${average}`,
      `RESOLUTION=${variant.width}x${variant.height}`,
      ...(variant.codecs ? [`CODECS="${variant.codecs}"`] : []),
    ]
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, `${variant.name}/${VARIANT_PLAYLIST}`)
  }
  await writeFile(join(hlsDir, MASTER_PLAYLIST), `${lines.join('\n')}\n`)
}
