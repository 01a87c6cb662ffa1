import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/shared/package-root.js'
import { bagName, bagProblems } from './dependency-bags.js'
import { scratchTree } from './scratch-tree.js'

describe('every plugin hands its parts one dependency bag (docs/architecture.md)', () => {
  it('route factories, jobs and listeners take the bag, only index.ts sees the PluginContext', () => {
    expect(bagProblems(packageRoot())).toEqual([])
  })
})

describe('the check itself', () => {
  const { root, write } = scratchTree('mediactl-bags-')
  write(
    'plugins/media-box/media-box.deps.ts',
    'export interface MediaBoxDeps {\n  readonly emit: Emit\n}\nexport interface OtherDeps {}\n',
  )
  write(
    'plugins/media-box/index.ts',
    [
      'export function setUp(ctx: PluginContext) {}',
      'export function okRoutes(r: Router, deps: MediaBoxDeps): void {}',
    ].join('\n'),
  )
  write(
    'plugins/media-box/box.routes.ts',
    [
      'export function bareRoutes(r: Router): void {}',
      'export function bagRoutes(r: Router, deps: MediaBoxDeps): void {}',
      'export function oldRoutes(r: Router, emit: Emit, realm: string): void {}',
      'export function optionsRoutes(\n  r: Router,\n  options: BoxRouteOptions,\n): void {}',
      'export const arrowRoutes = (r: Router, deps: FilesDeps) => {}',
      'function privateRoutes(r: Router, emit: Emit) {}',
    ].join('\n'),
  )
  write(
    'plugins/media-box/box.job.ts',
    [
      'export function boxJob(deps: MediaBoxDeps): JobHandler {}',
      'export function otherJob(pc: PipelineContext): JobHandler {}',
      'export interface DeliveryDeps {}',
    ].join('\n'),
  )
  write(
    'plugins/media-box/box.listeners.ts',
    'export function boxListeners(ctx: PluginContext<unknown>, deps: MediaBoxDeps): void {\n  const f = (c: PluginContext) => c\n}\n',
  )
  write('plugins/lone/lone.deps.ts', 'export interface Lone {}\n')

  it('names the bag after the plugin', () => {
    expect(bagName('files')).toBe('FilesDeps')
    expect(bagName('encoder-ffmpeg')).toBe('EncoderFfmpegDeps')
  })

  it('names each place that breaks the convention, and passes what follows it', () => {
    expect(bagProblems(root)).toEqual([
      {
        file: 'plugins/lone/lone.deps.ts',
        problem: 'exports no interface LoneDeps',
      },
      {
        file: 'plugins/media-box/box.job.ts',
        problem: 'otherJob(pc: PipelineContext) takes (deps: MediaBoxDeps)',
      },
      {
        file: 'plugins/media-box/box.job.ts',
        problem: "declares DeliveryDeps: a plugin's one bag is MediaBoxDeps, in plugins/media-box/media-box.deps.ts",
      },
      {
        file: 'plugins/media-box/box.listeners.ts',
        problem: 'boxListeners(ctx: PluginContext<unknown>, deps: MediaBoxDeps) takes (deps: MediaBoxDeps)',
      },
      {
        file: 'plugins/media-box/box.listeners.ts',
        problem: 'takes a PluginContext (ctx: PluginContext<unknown>): only index.ts sees it',
      },
      {
        file: 'plugins/media-box/box.listeners.ts',
        problem: 'takes a PluginContext (c: PluginContext): only index.ts sees it',
      },
      {
        file: 'plugins/media-box/box.routes.ts',
        problem: 'oldRoutes(r: Router, emit: Emit, realm: string) takes (r: Router) or (r: Router, deps: MediaBoxDeps)',
      },
      {
        file: 'plugins/media-box/box.routes.ts',
        problem:
          'optionsRoutes(r: Router, options: BoxRouteOptions) takes (r: Router) or (r: Router, deps: MediaBoxDeps)',
      },
      {
        file: 'plugins/media-box/box.routes.ts',
        problem: 'arrowRoutes(r: Router, deps: FilesDeps) takes (r: Router) or (r: Router, deps: MediaBoxDeps)',
      },
      {
        file: 'plugins/media-box/media-box.deps.ts',
        problem: "declares OtherDeps: a plugin's one bag is MediaBoxDeps, in plugins/media-box/media-box.deps.ts",
      },
    ])
  })
})
