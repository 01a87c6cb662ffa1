import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  type EncoderPort,
  HttpError,
  type JobContext,
  type ProbeResult,
  type RenditionOutput,
} from '../../src/kernel/index.js'
import { type FileView, fileQueries, requireSpaceFor, setEncodingState } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'
import { FileGone, MediaFailure, UNREADABLE, reasonOf } from './encoding-failure.js'
import { EncodingProgress } from './encoding-progress.js'
import { copyToLocal, localSize, removeObjects, storeFolder, storeLocal } from './media-transfer.js'
import { probedMimeType, verdict } from './media-type.js'
import { renditionQueries } from './rendition.queries.js'
import { type NewRendition, RENDITIONS_FIELD, replaceRenditions } from './rendition.service.js'

/** Snapshots taken of a video (API-DECISIONS: ids 0 to 9). */
export const SNAPSHOT_COUNT = 10

/** The encoder of the pipeline; throws, saying what to enable, without one. */
export function encoderOf(deps: EncodingDeps): EncoderPort {
  if (!deps.encoder) throw new Error('no plugin provides the "encoder" port; enable one in the "plugins" config key')
  return deps.encoder
}

/** The run's share of progress by step: copying and probing, encoding, snapshots, storing. */
const STEPS = { probed: 3, encoded: 80, snapshots: 88, stored: 98 } as const

/** A stored rendition to record, with the local file or folder it comes from. */
interface Planned extends NewRendition {
  local: string
  /** A folder (HLS): stored object by object under `storageKey`. */
  folder?: boolean
}

/**
 * The first useful snapshot: black or blank frames (fades, title cards) compress to far
 * fewer bytes than pictures, so the first one of at least half the median size.
 */
export function firstUseful(sizes: readonly number[]): number {
  if (!sizes.length) return 0
  const median = [...sizes].sort((a, b) => a - b)[Math.floor(sizes.length / 2)]!
  const found = sizes.findIndex((size) => size >= median / 2)
  return found === -1 ? 0 : found
}

/** One run of the encoding of one file. */
export class EncodingRun {
  private readonly storage
  private readonly encoder: EncoderPort
  private readonly progress: EncodingProgress
  /** Where this run stores its renditions, under the file's prefix: `renditions/<run id>/`. */
  readonly runPrefix: string
  /** Every rendition of the file lives under it, whatever the run. */
  readonly renditionsPrefix: string
  /** The new set is recorded: its objects must stay whatever happens next. */
  recorded = false

  constructor(
    private readonly deps: EncodingDeps,
    private readonly job: JobContext,
    readonly file: FileView,
    readonly work: string,
  ) {
    this.storage = deps.storage
    this.encoder = encoderOf(deps)
    this.progress = new EncodingProgress(deps, file.id, job)
    this.renditionsPrefix = `${file.storagePrefix}renditions/`
    this.runPrefix = `${this.renditionsPrefix}${randomBytes(6).toString('hex')}/`
  }

  private get signal(): AbortSignal {
    return this.job.signal
  }

  /** Runs an encoder step: what it throws, unless the job was aborted, fails the file for good. */
  private async encoderStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step()
    } catch (error) {
      if (this.signal.aborted) throw error
      throw new MediaFailure(`the encoder could not process the file: ${reasonOf(error, this.work)}`)
    }
  }

  async execute(): Promise<void> {
    const started = performance.now()
    const { file, deps } = this
    // `running` was shown when the job was claimed, `finished` is shown when it succeeds
    // (encoding-state.hook.ts): both in the job's own transactions.
    await this.removeLeftovers()
    const input = join(this.work, 'source')
    await copyToLocal(this.storage, file.storageKey, input, this.signal)
    const probe = await this.encoder.probe(input, this.signal)
    const found = verdict(file, probe)
    if ('unreadable' in found) throw new MediaFailure(UNREADABLE)
    if (found.type === 'document' || found.type === 'other') {
      // Nothing to render: such files are finished as soon as they are known.
      await setEncodingState(deps.em(), file.id, { type: found.type })
      return
    }
    const mimeType = probedMimeType(file.mimeType, found.type, probe)
    await setEncodingState(deps.em(), file.id, { type: found.type, ...(mimeType ? { mimeType } : {}) })
    await this.progress.reach(STEPS.probed)
    const outputDir = join(this.work, 'out')
    await mkdir(outputDir)
    const outputs = await this.encoderStep(() =>
      this.encoder.encode({
        input,
        outputDir,
        probe,
        signal: this.signal,
        onProgress: (percent) => this.progress.report(STEPS.probed + ((STEPS.encoded - STEPS.probed) * percent) / 100),
      }),
    )
    await this.progress.reach(STEPS.encoded)
    const planned = await this.plan(outputDir, outputs)
    if (found.type === 'video') planned.push(...(await this.snapshots(input, probe)))
    await this.progress.reach(STEPS.snapshots)
    await this.checkSpace(planned)
    await this.store(planned)
    await this.record(planned)
    this.observeSpeed(found.type, started, outputs, probe)
    // The previous set (or a crashed run's leftovers): nothing points at it any more.
    await removeObjects(this.storage, this.renditionsPrefix, (key) => key.startsWith(this.runPrefix)).catch(
      (error: unknown) => deps.log.warn({ err: error, file: file.id }, 'earlier renditions not removed'),
    )
    await this.progress.settled()
  }

  /**
   * Counts the run's speed: its wall time so far (copying the original out, probing,
   * encoding, snapshots, storing) per second of media made, the longest output's duration
   * (as the outputs were probed) or else the original's. Images have no duration.
   */
  private observeSpeed(
    kind: 'video' | 'audio' | 'image',
    started: number,
    outputs: readonly RenditionOutput[],
    probe: ProbeResult,
  ): void {
    if (kind === 'image') return
    const made = Math.max(0, ...outputs.map((output) => output.duration ?? 0)) || (probe.duration ?? 0)
    if (made > 0) this.deps.encodeSpeed.observe({ kind }, (performance.now() - started) / 1000 / made)
  }

  /**
   * Removes what earlier runs stored and no row records (a run cut short by a crash), so a
   * file never holds more than its recorded set and the set being made.
   */
  private async removeLeftovers(): Promise<void> {
    const recorded = await renditionQueries.ofFile(this.deps.reader, this.file.id)
    const keep = (key: string): boolean =>
      recorded.some((r) => (r.storageKey.endsWith('/') ? key.startsWith(r.storageKey) : key === r.storageKey))
    await removeObjects(this.storage, this.renditionsPrefix, keep)
  }

  /** The encoder's outputs as renditions to store, each under a key of this run. */
  private async plan(outputDir: string, outputs: readonly RenditionOutput[]): Promise<Planned[]> {
    const planned: Planned[] = []
    for (const output of outputs) {
      const local = join(outputDir, output.path)
      const folder = output.kind === 'hls'
      const ext = folder ? '' : extname(output.path).toLowerCase()
      planned.push({
        kind: output.kind,
        name: output.name,
        storageKey: folder ? `${this.runPrefix}hls/` : `${this.runPrefix}${output.kind}-${output.name}${ext}`,
        size: await localSize(local),
        mimeType: output.mimeType,
        width: output.width ?? null,
        height: output.height ?? null,
        duration: output.duration ?? null,
        local,
        folder,
      })
    }
    return planned
  }

  /** The snapshots of a video, the first useful one selected (the thumbnail). */
  private async snapshots(input: string, probe: ProbeResult): Promise<Planned[]> {
    const dir = join(this.work, 'snapshots')
    await mkdir(dir)
    const paths = await this.encoderStep(() => this.encoder.snapshots(input, dir, SNAPSHOT_COUNT, probe, this.signal))
    const sizes = await Promise.all(paths.map((path) => localSize(path)))
    const selected = firstUseful(sizes)
    return paths.map((local, i) => ({
      kind: 'snapshot' as const,
      name: String(i),
      storageKey: `${this.runPrefix}snapshot-${i}.jpg`,
      size: sizes[i]!,
      mimeType: 'image/jpeg',
      width: probe.width,
      height: probe.height,
      local,
      selected: i === selected,
    }))
  }

  /** Bytes the new set adds to what the file stores now (a custom snapshot stays). */
  private async growth(planned: readonly Planned[]): Promise<number> {
    const custom = await renditionQueries.one(this.deps.reader, this.file.id, 'snapshot', 'custom')
    const total = planned.reduce((sum, r) => sum + r.size, custom?.size ?? 0)
    const current = await fileQueries.fileById(this.deps.reader, this.file.id)
    if (!current) throw new FileGone()
    return total - (current.storedBytes - current.size)
  }

  /** Fails before storing anything when the set clearly does not fit the quotas (checked exactly when recorded). */
  private async checkSpace(planned: readonly Planned[]): Promise<void> {
    const user = { id: this.file.userId, platformId: this.file.platformId }
    try {
      await requireSpaceFor(this.deps.em(), user, await this.growth(planned), RENDITIONS_FIELD)
    } catch (error) {
      throw spaceFailure(error, planned)
    }
  }

  private async store(planned: readonly Planned[]): Promise<void> {
    const total = planned.reduce((sum, r) => sum + r.size, 0) || 1
    let done = 0
    for (const rendition of planned) {
      this.signal.throwIfAborted()
      rendition.size = rendition.folder
        ? await storeFolder(this.storage, rendition.local, rendition.storageKey, this.signal)
        : await storeLocal(this.storage, rendition.local, rendition.storageKey)
      done += rendition.size
      this.progress.report(STEPS.snapshots + ((STEPS.stored - STEPS.snapshots) * done) / total)
    }
    await this.progress.reach(STEPS.stored)
  }

  private async record(planned: readonly Planned[]): Promise<void> {
    this.signal.throwIfAborted()
    try {
      await replaceRenditions(
        this.deps.em(),
        this.file.id,
        planned.map(({ local: _local, folder: _folder, ...rendition }) => rendition),
        (tx) => this.job.hold(tx),
      )
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) throw new FileGone()
      throw spaceFailure(error, planned)
    }
    this.recorded = true
  }
}

/** The quotas' 412 as the reason of a failed encoding; anything else unchanged. */
function spaceFailure(error: unknown, planned: readonly Planned[]): unknown {
  if (!(error instanceof HttpError) || error.status !== 412) return error
  const bytes = planned.reduce((sum, r) => sum + r.size, 0)
  const why = error.fields[RENDITIONS_FIELD] ?? error.message
  return new MediaFailure(`not enough space for the renditions (${bytes} bytes): ${why}`)
}
