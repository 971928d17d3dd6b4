/**
 * How far V8's heap may grow past what is live during `ratings import`. By
 * default V8 lets the old generation grow to up to four times its live size
 * before a full collection; an import allocates at a high rate while it
 * writes, so much of its peak RSS would be garbage not yet collected. Bounding the
 * growth to half the live size keeps the peak near what the import holds, at
 * the cost of more frequent collections. V8 reads this flag whenever it sets
 * the next limit, so the import command sets it at its start; a server never
 * does.
 */
import { setFlagsFromString } from "node:v8"

export const ImportHeapGrowingPercent = 50

/** Bounds the heap's growth for the rest of this process (an import's). */
export const boundImportHeap = (): void => {
  setFlagsFromString(`--heap-growing-percent=${ImportHeapGrowingPercent}`)
}
