import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { importCycles, importGraph } from './import-graph.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('import cycles', () => {
  it('none among the files of src/ and plugins/ (type-only imports included)', () => {
    const cycles = importCycles(importGraph(root, ['src', 'plugins'])).map((cycle) => cycle.join(' -> '))
    expect(cycles).toEqual([])
  })

  describe('the check fails on a circle', () => {
    const scratch = join(tmpdir(), `mediactl-cycles-${process.pid}`)
    afterAll(() => rmSync(scratch, { recursive: true, force: true }))

    it('names the files of a deliberate circle, a type-only import closing it', () => {
      mkdirSync(join(scratch, 'src'), { recursive: true })
      writeFileSync(join(scratch, 'src/a.ts'), "import { b } from './b.js'\nexport const a = b + 1\n")
      writeFileSync(join(scratch, 'src/b.ts'), "import { c } from './c.js'\nexport const b = c\n")
      writeFileSync(
        join(scratch, 'src/c.ts'),
        "import type { A } from './a.js'\nexport const c = 1\nexport type C = A\n",
      )
      writeFileSync(join(scratch, 'src/d.ts'), "import { a } from './a.js'\nexport const d = a\n")
      expect(importCycles(importGraph(scratch, ['src']))).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']])
    })
  })
})
