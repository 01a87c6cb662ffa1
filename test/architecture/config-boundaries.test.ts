import { describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { packageRoot } from '../../src/shared/package-root.js'
import { scratchTree } from './scratch-tree.js'
import { configReads } from './config-reads.js'

describe('each plugin reads only its own configuration section', () => {
  it("another plugin's settings come through what that plugin exposes, never by its section", () => {
    expect(configReads(packageRoot(), CATALOG.names)).toEqual([])
  })
})

describe('the check itself', () => {
  const { root, write } = scratchTree('mediactl-config-reads-')
  write(
    'plugins/a/index.ts',
    [
      'const own = ctx.config.limit',
      'const kernel = ctx.kernelConfig.http.max_list + ctx.kernelConfig.data_dir.length',
      'const theirs = files.config!.parse(ctx.kernelConfig.files ?? {})',
      "const quoted = ctx.kernelConfig['player-x']",
      "const parsed = pluginConfig(config, 'files', schema)",
      'const settings = ctx.use(FILES_SETTINGS)',
    ].join('\n'),
  )
  write('plugins/a/browser/page.browser.ts', 'const x = thing.config.parse(1)\n')

  it("names each read of another plugin's section; kernel keys, its own section and ctx.use pass", () => {
    expect(configReads(root, ['a', 'files', 'player-x'])).toEqual([
      { file: 'plugins/a/index.ts', reads: 'kernelConfig.files' },
      { file: 'plugins/a/index.ts', reads: "kernelConfig['player-x']" },
      { file: 'plugins/a/index.ts', reads: 'files.config!.parse(' },
      { file: 'plugins/a/index.ts', reads: 'pluginConfig(' },
    ])
  })
})
