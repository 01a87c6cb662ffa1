/** The first line of `text`, cut at `width` characters with an ellipsis: what a table shows (--json has it whole). */
export function firstLine(text: string, width: number): string {
  const line = text.split('\n')[0]!
  return line.length > width ? `${line.slice(0, width - 1)}…` : line
}
