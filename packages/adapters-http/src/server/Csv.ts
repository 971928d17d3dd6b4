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

/**
 * The document as chunks of at most `rowsPerChunk` rows each, encoded as it
 * is sent, so a large export is never held as one string.
 */
export function* csvChunks(
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<{ readonly [column: string]: unknown }>,
  rowsPerChunk = 256
): Generator<Uint8Array> {
  const encoder = new TextEncoder()
  yield encoder.encode(csvLine(columns))
  for (let start = 0; start < rows.length; start += rowsPerChunk) {
    let chunk = ""
    const end = Math.min(rows.length, start + rowsPerChunk)
    for (let i = start; i < end; i++) {
      const row = rows[i]!
      chunk += csvLine(columns.map((c) => row[c]))
    }
    yield encoder.encode(chunk)
  }
}
