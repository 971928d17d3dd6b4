/**
 * Where an import's finding points: an item's file and JSON path, a path
 * below it, and whether a key was already found broken (`*`: everything).
 */
import type { Located } from "./ImportDecode.ts"
import { jsonPath } from "./ImportIssue.ts"

/** The item's file and its JSON path in it. */
export const where = (item: Located<unknown>) => `${item.source} ${item.path}`

/** A JSON path below an item, from its segments. */
export const sub = (...segments: ReadonlyArray<PropertyKey>) => jsonPath(segments, "")

/** Whether `key` (or everything, `*`) is in the set of broken keys. */
export const isBroken = (set: ReadonlySet<string>, key: string) => set.has("*") || set.has(key)
