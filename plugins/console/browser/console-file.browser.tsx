// The console's file section (SECTIONS.file of console.pages.ts), a script of its own.
import { FilePage } from './file-page.js'
import { mount } from './mount.js'

mount(FilePage)
