/**
 * The messages of the webhooks section, in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const webhooksEn = {
  'nav.webhooks': 'Webhooks',
  'webhooks.title': 'Webhooks',
} as const

export const webhooksFr: Record<keyof typeof webhooksEn, string> = {
  'nav.webhooks': 'Webhooks',
  'webhooks.title': 'Webhooks',
}
