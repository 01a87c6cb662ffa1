/**
 * Characters XML 1.0 cannot carry (C0 controls other than tab, newline and carriage return;
 * U+FFFE, U+FFFF), refused in text fields (412).
 */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/
