// The console's publishing section (SECTIONS.publishing of console.pages.ts), a script of its own.
import { Publishing } from './publishing.js'
import { mount } from './mount.js'

mount(Publishing)
