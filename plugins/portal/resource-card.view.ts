import { type SafeHtml, html } from '../../src/kernel/index.js'
import type { ResourceDetails, ResourceView } from '../resources/index.js'
import { durationTime } from './portal.text.js'

/** What a card shows: the resource and its details (thumbnail URL with its token, duration). */
export interface CardItem {
  resource: ResourceView
  details: ResourceDetails | undefined
}

/**
 * A resource as a card linking to its page: thumbnail (its alt text is the title, as the
 * picture is the visitor's first cue), title, duration. Without a thumbnail yet, a plain tile.
 */
export function resourceCard(item: CardItem, href: string): SafeHtml {
  const { resource, details } = item
  const picture = details?.thumbnail
    ? html`<img class="thumb" src="${details.thumbnail}" alt="${resource.title}" width="320" height="180" loading="lazy" decoding="async">`
    : html`<span class="thumb" aria-hidden="true"></span>`
  const duration = details?.duration
    ? html`<span class="duration"><span class="visually-hidden">Duration: </span>${durationTime(details.duration)}</span>`
    : null
  return html`<li class="card"><a href="${href}">${picture}<span class="card-body"><span class="card-title">${resource.title}</span>${duration}</span></a></li>`
}

/** A list of cards; null when empty. */
export function cardList(items: readonly CardItem[], hrefOf: (slug: string) => string): SafeHtml | null {
  if (items.length === 0) return null
  return html`<ul class="cards">${items.map((item) => resourceCard(item, hrefOf(item.resource.slug)))}</ul>`
}
