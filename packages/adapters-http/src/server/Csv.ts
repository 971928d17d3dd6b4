/**
 * RFC 4180 CSV: CRLF line ends, a header row, and a field quoted (with its
 * quotes doubled) when it holds a comma, a quote, CR or LF, or starts or ends
 * with a space (which some readers would trim). Values are written exactly:
 * null is an empty field, numbers in JavaScript's shortest round-trip form,
 * objects (domain_scores) as JSON text.
 */

const NeedsQuotes = /[",\r\n]|^\s|\s$/

export const csvField = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  const text = typeof value === "object" ? JSON.stringify(value) : String(value)
  return NeedsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvLine = (values: ReadonlyArray<unknown>): string => `${values.map(csvField).join(",")}\r\n`

/** One page of rows as CSV lines, in the given column order. */
export const csvRows = (
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<{ readonly [column: string]: unknown }>
): string => {
  let text = ""
  for (const row of rows) text += csvLine(columns.map((c) => row[c]))
  return text
}
