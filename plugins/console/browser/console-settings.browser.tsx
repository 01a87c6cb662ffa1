// The console's settings section (SECTIONS.settings of console.pages.ts), a script of its own.
import { Settings } from './settings.js'
import { mount } from './mount.js'

mount(Settings)
