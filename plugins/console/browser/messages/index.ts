import { type MessageKey, type Messages, en } from './en.js'
import { fr } from './fr.js'

export type { MessageKey, Messages }

/** The console's languages, the first the default. */
export const LANGUAGES = ['en', 'fr'] as const
export type Language = (typeof LANGUAGES)[number]

export const CATALOGS: Record<Language, Messages> = { en, fr }

/** Whether a string names one of the console's languages. */
export const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language)

/** The message `key` in `language`, its `{name}` marks filled from `values` (left as is when a value is missing). */
export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  return CATALOGS[language][key].replace(/\{(\w+)\}/g, (mark, name: string) =>
    values[name] === undefined ? mark : String(values[name]),
  )
}

/**
 * The language of a request's `Accept-Language` the console speaks, by preference (`q`), else English.
 * `fr-CA;q=0.8, en;q=0.5` answers French.
 */
export function preferredLanguage(header: string | undefined): Language {
  if (!header) return 'en'
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      return { primary: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q.slice(2)) : 1, index }
    })
    .filter((entry) => entry.q > 0 && !Number.isNaN(entry.q))
    .sort((a, b) => b.q - a.q || a.index - b.index)
  return ranked.map((entry) => entry.primary).find(isLanguage) ?? 'en'
}
