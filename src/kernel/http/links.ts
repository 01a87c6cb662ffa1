/**
 * Builds absolute URLs from the configured public base URL, so entities never know their
 * address. Every segment is percent-encoded.
 */
export class LinkBuilder {
  private current: string

  constructor(baseUrl: string) {
    this.current = baseUrl.replace(/\/+$/, '')
  }

  /** The base URL, without a trailing slash. */
  get base(): string {
    return this.current
  }

  /**
   * Moves every link to `baseUrl`: without a configured public URL, links follow the address
   * the server actually bound (port 0 included), known only once it listens. One builder for
   * the process, so plugins may keep it from registration on.
   */
  rebase(baseUrl: string): void {
    this.current = baseUrl.replace(/\/+$/, '')
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
