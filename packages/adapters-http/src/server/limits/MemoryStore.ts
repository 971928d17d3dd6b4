/**
 * The process-local store of counters: Effect's memory store's fixed window
 * (the same arithmetic: each request adds window/limit to the counter's
 * lifetime, so a burst of the whole limit is forgotten one window later),
 * with two changes: expired counters are swept once a minute (Effect's keeps
 * every key it has seen, and a public server sees an unbounded set of
 * addresses), and a read (0 tokens) of a counter not held keeps nothing. It
 * answers at once: its step is a plain function, called without an effect.
 */
import { Context, Duration, Layer } from "effect"
import { FailedPrefix } from "./Subjects.ts"

const SweepEvery = Duration.toMillis(Duration.minutes(1))

/** The fixed-window step at `now`: the count after it and the counter's time to live. */
export type FixedWindowStep = (
  key: string,
  tokens: number,
  refillRateMillis: number,
  limit: number | undefined,
  now: number
) => readonly [count: number, ttlMillis: number]

export interface MemoryCounters {
  readonly step: FixedWindowStep
  /** No counter of failed credentials (`authfail:`) lives past this time: before it none need be read. */
  readonly failedLiveUntil: () => number
  /** How many counters are held, expired ones not yet swept included. */
  readonly size: () => number
}

/** A counter with nothing counted: the count 0, and a lifetime already over. */
const NothingCounted = [0, 0] as const

export const makeMemoryCounters = (): MemoryCounters => {
  const counters = new Map<string, { count: number; expiresAt: number }>()
  let failedLiveUntil = Number.NEGATIVE_INFINITY
  let sweptAt = Number.NEGATIVE_INFINITY
  const sweep = (now: number) => {
    if (now - sweptAt < SweepEvery) return
    sweptAt = now
    for (const [key, counter] of counters) if (counter.expiresAt <= now) counters.delete(key)
  }
  const step: FixedWindowStep = (key, tokens, refillRateMillis, limit, now) => {
    sweep(now)
    let counter = counters.get(key)
    if (counter === undefined || counter.expiresAt <= now) {
      // A read of a counter not held or expired: what a fresh one would say, without keeping it.
      if (tokens === 0) return NothingCounted
      counter = { count: 0, expiresAt: now }
      counters.set(key, counter)
    }
    if (limit !== undefined && counter.count + tokens > limit) {
      return [counter.count + tokens, counter.expiresAt - now] as const
    }
    counter.count += tokens
    counter.expiresAt += refillRateMillis * tokens
    if (counter.expiresAt > failedLiveUntil && key.startsWith(FailedPrefix))
      failedLiveUntil = counter.expiresAt
    return [counter.count, counter.expiresAt - now] as const
  }
  return { step, failedLiveUntil: () => failedLiveUntil, size: () => counters.size }
}

/** The memory store of a limiter (RateLimit.ts): one per server, or shared by limiters that share counters. */
export class MemoryStore extends Context.Service<MemoryStore, MemoryCounters>()(
  "@ratings/adapters-http/limits/MemoryStore"
) {
  static readonly layer = Layer.sync(MemoryStore, makeMemoryCounters)
}
