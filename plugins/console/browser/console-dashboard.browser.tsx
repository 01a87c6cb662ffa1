// The console's dashboard section (SECTIONS.dashboard of console.pages.ts), a script of its own.
import { Dashboard } from './dashboard.js'
import { mount } from './mount.js'

mount(Dashboard)
