import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { countryName, languageName } from '../../src/shared/iso-codes.js'
import type { UserSummary, UserView } from './user.queries.js'

function summaryFields(u: UserSummary): XmlNode[] {
  return [
    xml.str('username', u.username),
    xml.str('first_name', u.firstName),
    xml.str('last_name', u.lastName),
    xml.str('email', u.email),
    xml.flag('is_active', u.isActive),
  ]
}

/** A user in a list: href, username, first_name, last_name, email, is_active (no foreign links). */
export function userSummaryXml(links: LinkBuilder, u: UserSummary): XmlNode {
  return xml.el('user', { href: links.url('user', u.username) }, summaryFields(u))
}

/**
 * User info (also the create and update answers): every field but the password, country
 * and language as English names, and the platform, profile and accesses links.
 */
export function userInfoXml(links: LinkBuilder, u: UserView): XmlNode {
  return xml.el('user', { href: links.url('user', u.username) }, [
    ...summaryFields(u),
    xml.str('telephone', u.telephone),
    xml.str('address', u.address),
    xml.str('city', u.city),
    xml.str('zipcode', u.zipcode),
    xml.str('country', u.country && countryName(u.country)),
    xml.str('language', u.language && languageName(u.language)),
    xml.link('platform', links.url('platform', u.platformSlug)),
    xml.link('profile', links.url('profile', u.profileSlug)),
    xml.link('accesses', links.url('user', u.username, 'accesses')),
  ])
}

/** `users` of a platform: one `user` summary per user. */
export function userListXml(links: LinkBuilder, platformSlug: string, items: UserSummary[]): XmlNode {
  return xml.el(
    'users',
    { href: links.url('platform', platformSlug, 'users') },
    items.map((u) => userSummaryXml(links, u)),
  )
}

/** The answer of a right password check: where the checked user lives. */
export function redirectionXml(url: string): XmlNode {
  return xml.el('redirection', undefined, [xml.str('url', url)])
}

/** A new API key, shown this once (`POST /user/<username>/api_key`): the user's link, username and key. */
export function apiKeyXml(links: LinkBuilder, username: string, apiKey: string): XmlNode {
  return xml.el('api_key', { href: links.url('user', username) }, [
    xml.str('username', username),
    xml.str('key', apiKey),
  ])
}
