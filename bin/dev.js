#!/usr/bin/env -S node --import tsx
// Runs the CLI from the TypeScript sources (no build step), for development. The pages' browser scripts are bundled
// first (dist/browser/, as `npm run build` does), so the pages run the sources' scripts too.
import { execute } from '@oclif/core'
import { bundleBrowserScripts } from '../scripts/bundle-browser.js'

await bundleBrowserScripts()
await execute({ development: true, dir: import.meta.url })
