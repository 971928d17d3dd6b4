/**
 * The JSON layout of the committed demo files. The repository's formatter
 * (Biome) also formats JSON, so the builder writes exactly what Biome would:
 * objects always broken one key per line, arrays of scalars on one line when
 * that line fits the 110-column width, every other array one item per line.
 * Rebuilding the demo then never leaves the formatter anything to change.
 */

const LineWidth = 110
const Indent = "  "

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isScalar = (v: unknown): boolean => v === null || typeof v !== "object"

const scalar = (v: unknown): string => {
  if (typeof v === "number" && !Number.isFinite(v)) throw new TypeError(`not a JSON number: ${v}`)
  return JSON.stringify(v)
}

/**
 * `prefix` is what precedes the value on its line (indent and `"key": `) and
 * `suffix` what follows it (a comma or nothing): both count toward the width.
 */
const print = (value: unknown, depth: number, prefix: number, suffix: number): string => {
  if (isScalar(value)) return scalar(value)
  const inner = Indent.repeat(depth + 1)
  const close = Indent.repeat(depth)
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]"
    if (value.every(isScalar)) {
      const flat = `[${value.map(scalar).join(", ")}]`
      if (prefix + flat.length + suffix <= LineWidth) return flat
      if (value.some((v) => typeof v !== "string")) {
        // Biome fills long arrays of numbers several per line; the demo never needs one.
        throw new RangeError(`a long array of non-string scalars has no stable layout: ${flat.slice(0, 60)}`)
      }
    }
    const items = value.map((v, i) => inner + print(v, depth + 1, inner.length, i < value.length - 1 ? 1 : 0))
    return `[\n${items.join(",\n")}\n${close}]`
  }
  const keys = Object.keys(value as object).filter((k) => (value as Record<string, unknown>)[k] !== undefined)
  if (keys.length === 0) return "{}"
  const lines = keys.map((k, i) => {
    const head = `${inner}${JSON.stringify(k)}: `
    const v = (value as Record<string, unknown>)[k]
    return head + print(v, depth + 1, head.length, i < keys.length - 1 ? 1 : 0)
  })
  return `{\n${lines.join(",\n")}\n${close}}`
}

/** The file text of a JSON value, laid out as Biome lays it out, with a final newline. */
export const formatJson = (value: Json | object): string => `${print(value, 0, 0, 0)}\n`
