/**
 * Builds absolute URLs from the configured public base URL, so entities never know their
 * address. Every segment is percent-encoded.
 */
export class LinkBuilder {
  readonly base: string

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '')
  }

  /** `url('platform', slug)` → `https://host/platform/<slug>`. */
  url(...segments: (string | number)[]): string {
    if (segments.length === 0) return `${this.base}/`
    return `${this.base}/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`
  }

  /** The path part of the base URL (empty or `/prefix`), to strip from request targets. */
  get pathPrefix(): string {
    return new URL(`${this.base}/`).pathname.replace(/\/$/, '')
  }
}
