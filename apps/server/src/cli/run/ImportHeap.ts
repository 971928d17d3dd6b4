/**
 * How an import's process keeps V8's heap near what it holds. By default V8
 * lets the old generation grow to up to four times its live size before a
 * full collection; an import allocates at a high rate while it writes, so
 * much of its peak RSS would be garbage not yet collected. Bounding the
 * growth to half the live size keeps the peak near what the import holds, at
 * the cost of more frequent collections. V8 reads this flag whenever it sets
 * the next limit, so the import command sets it at its start; a server never
 * does.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

export const ImportHeapGrowingPercent = 50

/** Bounds the heap's growth for the rest of this process (an import's). */
export const boundImportHeap = (): void => {
  setFlagsFromString(`--heap-growing-percent=${ImportHeapGrowingPercent}`)
}

let collect: NodeJS.GCFunction | undefined

/** V8's `gc`, exposed for this process if its flags did not (a context made after the flag has it). */
const gcFunction = (): NodeJS.GCFunction => {
  if (collect !== undefined) return collect
  if (typeof globalThis.gc === "function") collect = globalThis.gc
  else {
    setFlagsFromString("--expose-gc")
    collect = runInNewContext("gc") as NodeJS.GCFunction
  }
  return collect
}

/**
 * Hands the heap's free pages back to the system. V8 keeps the pages a
 * collection frees in a pool for its next allocations, resident, so a
 * process stays at the largest heap it ever had; validation's heap (the
 * decoded input, its indexes) is the largest an import has, and is garbage
 * once the plan is made. A last-resort collection also empties that pool.
 * Called between an import's phases, where little is live.
 */
export const releaseImportHeap = (): void => {
  gcFunction()({ type: "major", execution: "sync", flavor: "last-resort" })
}
