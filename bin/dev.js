#!/usr/bin/env -S node --import tsx
// Runs the CLI from the TypeScript sources (no build step), for development. The pages' browser scripts are bundled
// first (dist/browser/, as `npm run build` does), so the pages run the sources' scripts too.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { execute } from '@oclif/core'
import { bundleBrowserScripts } from '../scripts/bundle-browser.js'

// package.json points oclif at the bundle of the compiled CLI (dist/bundle/); the commands' compiled path instead,
// which oclif's development mode maps to src/cli/commands.ts through tsconfig.json.
const root = fileURLToPath(new URL('..', import.meta.url))
const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
pjson.oclif.commands.target = './dist/src/cli/commands.js'

await bundleBrowserScripts()
await execute({ development: true, dir: import.meta.url, loadOptions: { root, pjson, isRoot: true } })
