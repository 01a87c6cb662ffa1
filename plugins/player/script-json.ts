/**
 * `value` as JSON that is also safe inside a `<script>` element and in a JavaScript source:
 * `<`, `>` and `&` become `\u003c`, ... (no `</script>` or `<!--` can end the element), and
 * U+2028 / U+2029 are escaped (line terminators in older JavaScript string literals).
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
