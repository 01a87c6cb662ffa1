import { CHANNEL_TYPE_WORD, type ChannelType } from './channel.types.js'

/** The channel types of one kernel, once collected. */
export class ChannelTypes {
  private readonly byWord: ReadonlyMap<string, ChannelType>

  constructor(types: readonly ChannelType[]) {
    this.byWord = new Map(types.map((type) => [type.type, type]))
  }

  /** The type of this word (lowercase), or undefined: an unknown type contributes nothing. */
  get(word: string): ChannelType | undefined {
    return this.byWord.get(word)
  }

  /** Whether channels of this type have a theme and a skin (unknown types do not). */
  themed(word: string): boolean {
    return this.byWord.get(word)?.themed ?? false
  }

  /** The words of the themed types, in definition order (for messages: `web`). */
  themedWords(): string[] {
    return [...this.byWord.values()].filter((type) => type.themed).map((type) => type.type)
  }
}

/**
 * The registry of one kernel: the built-in types plus those other plugins add on
 * `channels.types`, collected on first use (every plugin has registered its handlers by
 * then) and kept for the kernel's life.
 */
export class ChannelTypeRegistry {
  private loading: Promise<ChannelTypes> | undefined

  constructor(
    private readonly builtIns: readonly ChannelType[],
    /** Emits `channels.types` with this `add`. */
    private readonly collect: (add: (type: ChannelType) => void) => Promise<void>,
  ) {}

  /** The channel types, collecting them on the first call. */
  types(): Promise<ChannelTypes> {
    this.loading ??= this.load().catch((error: unknown) => {
      // A failed collection (a plugin adding a clashing type) is retried and reported again next time.
      this.loading = undefined
      throw error
    })
    return this.loading
  }

  private async load(): Promise<ChannelTypes> {
    const types = new Map<string, ChannelType>()
    let open = true
    const add = (type: ChannelType): void => {
      if (!open) throw new Error(`channel type "${type.type}" added after the types were collected`)
      if (!CHANNEL_TYPE_WORD.test(type.type) || type.type !== type.type.toLowerCase()) {
        throw new Error(`channel type "${type.type}": a type is a lowercase word of letters, digits, - and _`)
      }
      if (types.has(type.type)) throw new Error(`channel type "${type.type}" is defined twice`)
      types.set(type.type, type)
    }
    for (const type of this.builtIns) add(type)
    try {
      await this.collect(add)
    } finally {
      open = false
    }
    return new ChannelTypes([...types.values()])
  }
}
