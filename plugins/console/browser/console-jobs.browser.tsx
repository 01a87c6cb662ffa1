// The console's jobs section (SECTIONS.jobs of console.pages.ts), a script of its own.
import { Jobs } from './jobs.js'
import { mount } from './mount.js'

mount(Jobs)
