import { describe, expect, it } from 'vitest'
import { CATALOGS, LANGUAGES, message, preferredLanguage } from '../../../plugins/console/browser/messages/index.js'

const marks = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe("the console's message catalogs", () => {
  it('have the same keys in every language, none empty, with the same {marks}', () => {
    const english = CATALOGS.en
    for (const language of LANGUAGES) {
      const catalog = CATALOGS[language]
      expect(Object.keys(catalog).sort(), language).toEqual(Object.keys(english).sort())
      for (const [key, text] of Object.entries(catalog)) {
        expect(text.trim(), `${language} ${key}`).not.toBe('')
        expect(marks(text), `${language} ${key}`).toEqual(marks(english[key as keyof typeof english]))
      }
    }
  })

  it('fills the marks, and leaves a mark without a value as it is', () => {
    expect(message('fr', 'sign_in.throttled', { seconds: 12 })).toBe(
      'Trop de connexions échouées. Réessayez dans 12 secondes.',
    )
    expect(message('en', 'account.signed_in_as')).toBe('Signed in as {name}')
  })

  it('picks the language of Accept-Language by preference, English otherwise', () => {
    expect(preferredLanguage(undefined)).toBe('en')
    expect(preferredLanguage('fr-CA,fr;q=0.9,en;q=0.8')).toBe('fr')
    expect(preferredLanguage('de-DE, en;q=0.5, fr;q=0.7')).toBe('fr')
    expect(preferredLanguage('de, es')).toBe('en')
    expect(preferredLanguage('fr;q=0, en')).toBe('en')
    expect(preferredLanguage(';;;,q=,fr;q=abc')).toBe('en')
  })
})
