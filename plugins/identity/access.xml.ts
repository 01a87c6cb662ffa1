import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { AccessListRow } from './access.queries.js'

/** An access of a list, with the slug of its object resolved (null when it cannot be). */
export interface AccessView extends AccessListRow {
  objectSlug: string | null
}

/**
 * One access: href ending in its opaque id under its subject, then the subject link (`user`
 * or `group`), the object link named by its kind, and the role link (spec: Access).
 */
export function accessXml(links: LinkBuilder, a: AccessView): XmlNode {
  const subject: [string, string] = a.username !== null ? ['user', a.username] : ['group', a.groupSlug ?? '']
  return xml.el('access', { href: links.url(...subject, 'accesses', a.publicId) }, [
    xml.link(subject[0], links.url(...subject)),
    xml.link(a.objectKind, a.objectSlug === null ? null : links.url(a.objectKind, a.objectSlug)),
    xml.link('role', links.url('role', a.roleSlug)),
  ])
}

/** A list of accesses; `href` is the list's own address (`/user/<username>/accesses`, ...). */
export function accessListXml(links: LinkBuilder, href: string, items: AccessView[]): XmlNode {
  return xml.el(
    'accesses',
    { href },
    items.map((a) => accessXml(links, a)),
  )
}
