import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { PlayerFamily, PlayerKind, PlayerView } from './players.types.js'

/** What names one theme or behavior in a URL. */
type Addressed = { slug: string; platformSlug: string }

/** The address of a theme or behavior: `/platform/<platform>/player_theme/<slug>`. */
export const playerUrl = (links: LinkBuilder, kind: PlayerKind, p: Addressed): string =>
  links.url('platform', p.platformSlug, kind, p.slug)

/** A theme or behavior in a list: href, slug, name (no settings, no links). */
export function playerSummaryXml<S extends object>(
  links: LinkBuilder,
  family: PlayerFamily<S>,
  p: PlayerView<S>,
): XmlNode {
  return xml.el(family.kind, { href: playerUrl(links, family.kind, p) }, [
    xml.str('slug', p.slug),
    xml.str('name', p.name),
  ])
}

/** Info (also the create and update answers): slug, name, every setting, and the platform link. */
export function playerInfoXml<S extends object>(
  links: LinkBuilder,
  family: PlayerFamily<S>,
  p: PlayerView<S>,
): XmlNode {
  return xml.el(family.kind, { href: playerUrl(links, family.kind, p) }, [
    xml.str('slug', p.slug),
    xml.str('name', p.name),
    ...family.settingsXml(p),
    xml.link('platform', links.url('platform', p.platformSlug)),
  ])
}

/** `GET /platform/<slug>/player_theme`: `player_themes` of `player_theme` entries (same for behaviors). */
export function playerListXml<S extends object>(
  links: LinkBuilder,
  family: PlayerFamily<S>,
  platformSlug: string,
  items: PlayerView<S>[],
): XmlNode {
  return xml.el(
    family.plural,
    { href: links.url('platform', platformSlug, family.kind) },
    items.map((p) => playerSummaryXml(links, family, p)),
  )
}

/** `<player_theme href="..."/>` for a widget; an empty `<player_theme/>` when it has none. */
export const playerThemeLinkXml = (links: LinkBuilder, theme: Addressed | null | undefined): XmlNode =>
  xml.link('player_theme', theme ? playerUrl(links, 'player_theme', theme) : null)

/** `<player_behavior href="..."/>` for a widget; an empty `<player_behavior/>` when it has none. */
export const playerBehaviorLinkXml = (links: LinkBuilder, behavior: Addressed | null | undefined): XmlNode =>
  xml.link('player_behavior', behavior ? playerUrl(links, 'player_behavior', behavior) : null)
