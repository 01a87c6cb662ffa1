import { type SafeHtml, html } from '../../src/kernel/index.js'

/**
 * Descriptions are "simple text (plain text or HTML)" set through the API by anyone who may
 * edit the media: shown as text, always escaped (markup shows as written, it never runs), with
 * their line breaks kept: blank lines part paragraphs, single breaks become `<br>`.
 */
export function textBlock(text: string): SafeHtml | null {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((part) => part.trim())
    .filter(Boolean)
  if (paragraphs.length === 0) return null
  const lines = (paragraph: string) =>
    paragraph.split('\n').map((line, i) => (i === 0 ? html`${line}` : html`<br>${line}`))
  return html`<div class="text">${paragraphs.map((p) => html`<p>${lines(p)}</p>`)}</div>`
}

/** A duration in seconds as a clock (`0:07`, `12:05`, `1:02:03`). */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/** A duration as a `<time>` element (machine-readable ISO 8601 duration, human clock). */
export function durationTime(seconds: number): SafeHtml {
  return html`<time datetime="${`PT${Math.round(seconds * 100) / 100}S`}">${clock(seconds)}</time>`
}

const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' })

/** A date as a `<time>` element (ISO 8601, and the day in words, UTC). */
export function dateTime(date: Date): SafeHtml {
  return html`<time datetime="${date.toISOString()}">${DATE.format(date)}</time>`
}
