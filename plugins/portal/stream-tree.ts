import type { StreamView } from '../streams/index.js'

/**
 * The visible streams of a media as a tree (the streams plugin's list already leaves out hidden
 * and draft streams and everything below them), in creation order at each level.
 */
export class StreamTree {
  private readonly byId = new Map<number, StreamView>()
  private readonly children = new Map<number | null, StreamView[]>()

  constructor(streams: readonly StreamView[]) {
    for (const stream of streams) this.byId.set(stream.id, stream)
    for (const stream of streams) {
      // A parent missing from the list is not visible: the stream would not be listed either.
      const parent = stream.parentId !== null && this.byId.has(stream.parentId) ? stream.parentId : null
      const siblings = this.children.get(parent) ?? []
      siblings.push(stream)
      this.children.set(parent, siblings)
    }
  }

  /** The streams at the top of the media. */
  get roots(): readonly StreamView[] {
    return this.children.get(null) ?? []
  }

  /** The visible stream of this slug, or undefined (unknown, hidden, or below a hidden one). */
  bySlug(slug: string): StreamView | undefined {
    for (const stream of this.byId.values()) if (stream.slug === slug) return stream
    return undefined
  }

  /** The visible stream of this id. */
  get(id: number): StreamView | undefined {
    return this.byId.get(id)
  }

  /** The visible streams directly below a stream. */
  childrenOf(id: number): readonly StreamView[] {
    return this.children.get(id) ?? []
  }

  /** The streams above a stream, from the top down (without the stream itself). */
  ancestorsOf(id: number): StreamView[] {
    const chain: StreamView[] = []
    const seen = new Set<number>([id])
    let parentId = this.byId.get(id)?.parentId ?? null
    while (parentId !== null && !seen.has(parentId)) {
      const parent = this.byId.get(parentId)
      if (!parent) break
      chain.unshift(parent)
      seen.add(parentId)
      parentId = parent.parentId
    }
    return chain
  }

  /** A stream and every visible stream below it, depth first (the order the home page shows them in). */
  subtree(stream: StreamView): StreamView[] {
    return [stream, ...this.childrenOf(stream.id).flatMap((child) => this.subtree(child))]
  }
}
