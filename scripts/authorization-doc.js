#!/usr/bin/env node
// Regenerates the endpoint table of docs/authorization.md from the route table (npm run docs:authz).
import { writeAuthorizationDoc } from '../dist/src/app/authorization-doc.js'

await writeAuthorizationDoc(new URL('../docs/authorization.md', import.meta.url).pathname)
console.log('docs/authorization.md: endpoint table regenerated')
