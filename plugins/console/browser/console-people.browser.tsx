// The console's people section (SECTIONS.people of console.pages.ts), a script of its own.
import { People } from './people.js'
import { mount } from './mount.js'

mount(People)
