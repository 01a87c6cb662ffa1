import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { permissionsXml } from './permission.xml.js'
import type { Role } from './role.entity.js'
import { ROLE_FLAGS } from './role-flags.js'

/** A role in a list: href, slug, name. */
export function roleSummaryXml(links: LinkBuilder, role: Role): XmlNode {
  return xml.el('role', { href: links.url('role', role.slug) }, [
    xml.str('slug', role.slug),
    xml.str('name', role.name),
  ])
}

/**
 * Role info: slug, name, the platform link and the flag table
 * (`<permissions><platform><view>1</view>...</platform><media>...</media>...</permissions>`).
 */
export function roleInfoXml(links: LinkBuilder, role: Role): XmlNode {
  return xml.el('role', { href: links.url('role', role.slug) }, [
    xml.str('slug', role.slug),
    xml.str('name', role.name),
    xml.link('platform', links.url('platform', role.platform.slug)),
    permissionsXml(ROLE_FLAGS, role.permissions),
  ])
}

/** `GET /platform/<slug>/roles`. */
export function roleListXml(links: LinkBuilder, platformSlug: string, roles: Role[]): XmlNode {
  return xml.el(
    'roles',
    { href: links.url('platform', platformSlug, 'roles') },
    roles.map((role) => roleSummaryXml(links, role)),
  )
}
