/** The curl command that proves a key works. */
export function curlExample(username: string, apiKey: string, url: string): string {
  return `curl --digest -u '${username}:${apiKey}' ${url}/`
}

/** A plain text table of rows. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
