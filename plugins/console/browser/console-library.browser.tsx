// The console's library section (SECTIONS.library of console.pages.ts), a script of its own.
import { Library } from './library.js'
import { mount } from './mount.js'

mount(Library)
