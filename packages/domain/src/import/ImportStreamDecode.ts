/**
 * Decoding one import file item by item as its bytes are read
 * (ImportJsonStream.ts), so that no file is held whole. It accepts a file only
 * when decoding it whole would, with the same values: every item decodes with
 * the schema of its section, and the rest of the file (its format, keys and
 * quantum snapshot) with the file's schema. On anything else (a syntax error,
 * an issue, a NUL character, a number beyond a double, a key twice) it gives
 * up, and the caller decodes the file whole to report the exact issues.
 */
import { Result } from "effect"
import { mayHoldNonFiniteNumber } from "../model/JsonNumbers.ts"
import { nulPaths } from "../model/Primitives.ts"
import { decodeFile, decodeScorecardFast, itemDecoders, sectionNames } from "./ImportDecoders.ts"
import { ImportDecodeOptions, type ImportQuantumSnapshot, type ImportSectionName } from "./ImportFile.ts"
import { fileEvents, type ReadBytes } from "./ImportJsonStream.ts"

export interface StreamedItem<L> {
  readonly section: ImportSectionName
  readonly located: L
}

export interface StreamedFile<L> {
  /** Each item as `locate` made it, in file order. */
  readonly items: ReadonlyArray<StreamedItem<L>>
  readonly quantum: ImportQuantumSnapshot | undefined
}

const sections: ReadonlySet<string> = new Set(sectionNames)
const ItemOptions = { onExcessProperty: "error" } as const

/** The value of a JSON text, when it parses and holds no NUL character and no number beyond a double. */
const parsed = (text: string): { readonly value: unknown } | undefined => {
  if (mayHoldNonFiniteNumber(text)) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  // JSON text cannot hold a raw NUL, only its escape: without one the value holds none.
  return text.includes("\\u0000") && nulPaths(value).length > 0 ? undefined : { value }
}

/** An item decoded by its section's schema (scorecards first on the fast path), or undefined. */
const decodeItem = (section: ImportSectionName, value: unknown): { readonly value: unknown } | undefined => {
  if (section === "scorecards") {
    const fast = decodeScorecardFast(value, ItemOptions)
    if (Result.isSuccess(fast)) return { value: fast.success }
  }
  const decoded = itemDecoders[section](value, ItemOptions)
  return Result.isSuccess(decoded) ? { value: decoded.success } : undefined
}

/**
 * The items of the file `read` gives, each decoded and passed to `locate`
 * as it is read; undefined when the file is not one that decodes cleanly.
 */
export const decodeStream = <L>(
  read: ReadBytes,
  locate: (section: ImportSectionName, index: number, value: unknown) => L
): StreamedFile<L> | undefined => {
  const items: Array<StreamedItem<L>> = []
  // The file without its items, for the file's schema to check.
  const outline: Record<string, unknown> = {}
  const events = fileEvents(read, sections)
  for (let next = events.next(); ; next = events.next()) {
    if (next.done === true) {
      if (!next.value) return undefined
      break
    }
    const event = next.value
    const json = parsed(event.text)
    if (json === undefined) return undefined
    if (event.kind === "value") {
      if (sections.has(event.key) || event.key === "__proto__") return undefined
      outline[event.key] = json.value
      continue
    }
    const section = event.key as ImportSectionName
    const item = decodeItem(section, json.value)
    if (item === undefined) return undefined
    items.push({ section, located: locate(section, event.index, item.value) })
  }
  const file = decodeFile(outline, ImportDecodeOptions)
  return Result.isSuccess(file) ? { items, quantum: file.success.quantum_snapshot } : undefined
}
