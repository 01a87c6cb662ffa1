import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { Group } from './group.entity.js'
import type { User } from './user.entity.js'

/** A group in a list: href, slug, name (no foreign links in lists). */
export function groupSummaryXml(links: LinkBuilder, group: Group): XmlNode {
  return xml.el('group', { href: links.url('group', group.slug) }, [
    xml.str('slug', group.slug),
    xml.str('name', group.name),
  ])
}

/** Group info: the list fields and the platform, users and accesses links. */
export function groupInfoXml(links: LinkBuilder, group: Group): XmlNode {
  return xml.el('group', { href: links.url('group', group.slug) }, [
    xml.str('slug', group.slug),
    xml.str('name', group.name),
    xml.link('platform', links.url('platform', group.platform.slug)),
    xml.link('users', links.url('group', group.slug, 'users')),
    xml.link('accesses', links.url('group', group.slug, 'accesses')),
  ])
}

/** `GET /platform/<slug>/groups`. */
export function groupListXml(links: LinkBuilder, platformSlug: string, groups: Group[]): XmlNode {
  return xml.el(
    'groups',
    { href: links.url('platform', platformSlug, 'groups') },
    groups.map((group) => groupSummaryXml(links, group)),
  )
}

/** The members of a group: `users` of `user` (href, username, email), as every member endpoint answers. */
export function groupMembersXml(links: LinkBuilder, groupSlug: string, users: User[]): XmlNode {
  return xml.el(
    'users',
    { href: links.url('group', groupSlug, 'users') },
    users.map((user) =>
      xml.el('user', { href: links.url('user', user.username) }, [
        xml.str('username', user.username),
        xml.str('email', user.email),
      ]),
    ),
  )
}
