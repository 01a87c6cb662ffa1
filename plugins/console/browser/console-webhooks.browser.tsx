// The console's webhooks section (SECTIONS.webhooks of console.pages.ts), a script of its own.
import { Webhooks } from './webhooks.js'
import { mount } from './mount.js'

mount(Webhooks)
