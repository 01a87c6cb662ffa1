import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { permissionsXml } from './permission.xml.js'
import { PROFILE_FLAGS } from './profile-flags.js'
import type { Profile } from './profile.entity.js'

/** A profile in a list: href, slug, name and, as the spec asks, the platform link. */
export function profileSummaryXml(links: LinkBuilder, profile: Profile): XmlNode {
  return xml.el('profile', { href: links.url('profile', profile.slug) }, [
    xml.str('slug', profile.slug),
    xml.str('name', profile.name),
    xml.link('platform', links.url('platform', profile.platform.slug)),
  ])
}

/** Profile info: slug, name, quota (bytes, 0 unlimited), the flag table of every model, the platform link. */
export function profileInfoXml(links: LinkBuilder, profile: Profile): XmlNode {
  return xml.el('profile', { href: links.url('profile', profile.slug) }, [
    xml.str('slug', profile.slug),
    xml.str('name', profile.name),
    xml.num('quota', profile.quota),
    permissionsXml(PROFILE_FLAGS, profile.permissions),
    xml.link('platform', links.url('platform', profile.platform.slug)),
  ])
}

/** `GET /platform/<slug>/profiles`. */
export function profileListXml(links: LinkBuilder, platformSlug: string, profiles: Profile[]): XmlNode {
  return xml.el(
    'profiles',
    { href: links.url('platform', platformSlug, 'profiles') },
    profiles.map((profile) => profileSummaryXml(links, profile)),
  )
}
