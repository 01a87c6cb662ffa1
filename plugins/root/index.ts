import {
  type EntityManager,
  type LinkBuilder,
  type Principal,
  type XmlNode,
  definePlugin,
  reply,
  xml,
} from '../../src/kernel/index.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /** `GET /` is being answered: add the service links the user may use. */
    'root.describe': { em: EntityManager; user: Principal; links: LinkBuilder; services: XmlNode[] }
  }
}

/** The root: `GET /` answers `services` with one link per service the user may use. */
export default definePlugin({
  name: 'root',
  register(ctx) {
    ctx.routes((r) => {
      r.get(
        '/',
        async (c) => {
          const services: XmlNode[] = []
          await ctx.emit('root.describe', { em: c.em, user: c.principal, links: c.links, services })
          // Every user has a private file store at /files (API-DECISIONS: Representation).
          services.push(xml.link('files', c.links.url('files')))
          return reply.xml(200, xml.el('services', { href: c.links.url() }, services))
        },
        { permission: 'any authenticated user' },
      )
    })
  },
})
