/** The flag the webhooks and settings sections are for: offered to its holders only (the API refuses the others). */
export const MANAGES_PLATFORM = 'platform.edit'
