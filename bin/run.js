#!/usr/bin/env -S node --initial-old-space-size=128
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
