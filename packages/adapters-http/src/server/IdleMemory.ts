/**
 * Memory back to the operating system once traffic stops. V8 keeps the pages
 * a load freed in a pool and returns them only when its memory reducer sees
 * the allocation rate drop, which an idle server (no allocation, so no
 * collection) never shows it. So a server quiet for `quietMs` after serving
 * requests, its RSS grown by a tenth since the last time, asks V8 once for a
 * memory-reducing collection (`gc()`, present with `--expose-gc`, which
 * ServeNodeFlags.ts gives `ratings serve`; without it this does nothing).
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
