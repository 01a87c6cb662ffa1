import { describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import { packageRoot } from '../../src/shared/package-root.js'
import { scratchTree } from './scratch-tree.js'
import { importViolations } from './import-graph.js'

describe('the import graph keeps the architecture', () => {
  it('the kernel imports no plugin, src/app and src/cli only through the catalog; each plugin imports only the public entries of what it declares', async () => {
    const plugins = await CATALOG.load(CATALOG.names)
    const declared = new Map(plugins.map((plugin) => [plugin.name, plugin.dependsOn ?? []]))
    expect(importViolations(packageRoot(), (name) => declared.get(name) ?? [])).toEqual([])
  })
})

describe('the check itself fails on a wrong import', () => {
  const { root, write } = scratchTree('mediactl-imports-')
  write('src/kernel/index.ts', "export { helper } from './helper.js'\n")
  write('src/kernel/helper.ts', "import { thing } from '../../plugins/b/index.js'\nexport const helper = thing\n")
  write('src/shared/util.ts', 'export const util = 1\n')
  write('src/app/task.ts', "import { b } from '../../plugins/b/index.js'\nexport const task = b\n")
  write('src/catalog.ts', "export const load = () => import('../plugins/b/index.js')\n")
  write('plugins/a/index.ts', "import { b } from '../b/index.js'\nexport const a = b\n")
  write('plugins/a/inner.ts', "import { secret } from '../b/secret.js'\nexport { secret }\n")
  write('plugins/a/lazy.ts', "export const load = () => import('../c/index.js')\n")
  write('plugins/a/deep.ts', "import { helper } from '../../src/kernel/helper.js'\nexport { helper }\n")
  write('plugins/b/index.ts', 'export const b = 1\nexport const thing = 2\n')
  write('plugins/b/secret.ts', 'export const secret = 3\n')
  write('plugins/c/index.ts', "import { util } from '../../src/shared/util.js'\nexport const c = util\n")

  it('names each broken rule, and passes what is allowed', () => {
    const found = importViolations(root, (name) => (name === 'a' ? ['b'] : []))
    expect(found).toEqual([
      { file: 'src/kernel/helper.ts', imports: 'plugins/b/index.js', rule: 'src/kernel imports no plugin' },
      {
        file: 'src/app/task.ts',
        imports: 'plugins/b/index.js',
        rule: 'src/app imports no plugin but through src/catalog.ts',
      },
      {
        file: 'plugins/a/deep.ts',
        imports: 'src/kernel/helper.js',
        rule: 'a plugin uses the kernel through src/kernel/index.js only',
      },
      {
        file: 'plugins/a/inner.ts',
        imports: 'plugins/b/secret.js',
        rule: 'plugin "a" imports an internal file of "b" instead of its index.js',
      },
      {
        file: 'plugins/a/lazy.ts',
        imports: 'plugins/c/index.js',
        rule: 'plugin "a" imports "c" without declaring it in dependsOn',
      },
    ])
  })
})
