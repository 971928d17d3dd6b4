/**
 * Memory back to the operating system once traffic stops (the soak's "RSS
 * after the soak at most 1.5x idle").
 *
 * Under load V8 promotes many short-lived request objects to the old
 * generation (they are still in flight at a young collection) and lets that
 * generation grow between major collections. A major collection frees them,
 * but V8 keeps the freed pages in a pool for reuse instead of returning them.
 * Its memory reducer, which would return them, starts only when it sees the
 * allocation rate drop, and it measures that rate at collections: a server
 * that goes quiet makes no allocation and so no collection, and the pool
 * stays until V8's watchdog about 100 seconds later. Measured on the read
 * bench's server after 15 s of 422s: 388 MiB for two minutes, then 182 MiB
 * (192 MiB idle before the load).
 *
 * So a server that has served requests and then has started none for
 * `quietMs` asks V8 for a memory-reducing collection (the `last-resort`
 * flavour, which also releases the pooled pages), once per quiet spell, and
 * only when its RSS has grown by a tenth over what it was after the last one
 * (or at start): a few tens of milliseconds of collection on an idle process.
 * V8 exposes that collection only as `gc()`, present when Node runs with
 * `--expose-gc` (ServeNodeFlags.ts gives it to `ratings serve`); without it
 * this does nothing.
 */
import type { Server } from "node:net"

export interface IdleMemoryOptions {
  /** No request started for this long counts as quiet; default 5 seconds. */
  readonly quietMs?: number | undefined
  /** RSS over the last release (or start) that is worth a collection, as a fraction; default 0.1. */
  readonly growth?: number | undefined
  /** How often the server is looked at; default every second. */
  readonly checkEveryMs?: number | undefined
  /** The collection; default V8's `gc` when exposed. */
  readonly collect?: (() => void) | undefined
  /** The process's resident set in bytes; default `process.memoryUsage.rss`. */
  readonly rss?: (() => number) | undefined
  /** Told of each release: RSS before it and a check interval after it. */
  readonly onRelease?: ((before: number, after: number) => void) | undefined
}

type V8Gc = (options: { type: "major"; execution: "async"; flavor: "last-resort" }) => void

/** V8's memory-reducing collection, when Node runs with `--expose-gc`. */
export const exposedCollection = (): (() => void) | undefined => {
  const gc = (globalThis as { gc?: V8Gc }).gc
  return typeof gc === "function"
    ? () => gc({ type: "major", execution: "async", flavor: "last-resort" })
    : undefined
}

/**
 * Watches `server`'s requests and releases memory when it goes quiet (see
 * above). `requests` is a counter of the requests started on it. Returns the
 * function that stops watching (also stopped when the server closes).
 */
export const releaseMemoryWhenQuiet = (
  server: Server,
  requests: () => number,
  options: IdleMemoryOptions = {}
): (() => void) => {
  const collect = options.collect ?? exposedCollection()
  if (collect === undefined) return () => {}
  const rss = options.rss ?? (() => process.memoryUsage.rss())
  const quietMs = options.quietMs ?? 5_000
  const growth = options.growth ?? 0.1
  const every = options.checkEveryMs ?? 1_000
  let settled = rss()
  let seen = requests()
  let quietSince = Date.now()
  let servedSinceRelease = false
  let releasedAt: number | undefined
  let before = 0
  const check = () => {
    const now = Date.now()
    if (releasedAt !== undefined) {
      // The collection ran (asynchronously) since: what is left is the new reference.
      settled = rss()
      options.onRelease?.(before, settled)
      releasedAt = undefined
    }
    const count = requests()
    if (count !== seen) {
      seen = count
      quietSince = now
      servedSinceRelease = true
      return
    }
    if (!servedSinceRelease || now - quietSince < quietMs) return
    const current = rss()
    // Not grown: nothing worth a collection this quiet spell; the next traffic re-arms it.
    servedSinceRelease = false
    if (current <= settled * (1 + growth)) return
    before = current
    releasedAt = now
    collect()
  }
  const timer = setInterval(check, every)
  timer.unref()
  const stop = () => clearInterval(timer)
  server.once("close", stop)
  return stop
}
