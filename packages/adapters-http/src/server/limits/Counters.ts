/**
 * One primitive per store, on which every limit is written once
 * (Allowances.ts): take `tokens` (0: a read) from one window's counter. On
 * the memory store it is the synchronous fixed-window step, a plain value;
 * on a shared store (Redis) it is Effect's RateLimiter through the breaker
 * in front of the store (SharedStore.ts: each call bounded by the timeout,
 * none during an outage), an effect.
 */
import type { RateWindow } from "@ratings/domain/access/RequestLimits"
import { type Duration, Effect, Result } from "effect"
import { RateLimiter } from "effect/persistence"
import type { Step } from "../admission/Step.ts"
import type { MemoryCounters } from "./MemoryStore.ts"
import { makeStoreGuard, type StoreFailurePolicies, type StoreGuard } from "./SharedStore.ts"
import { figuresOf, secondsUntil, secondsUntilMillis, type WindowState } from "./Windows.ts"

/** What a take found: the window's state after it, the window exceeded, or a store that did not answer. */
export type Taken =
  | ({ readonly _tag: "Taken" } & WindowState)
  | { readonly _tag: "Exceeded"; readonly limit: number; readonly retryAfter: number }
  | { readonly _tag: "StoreFailed"; readonly message: string }

export interface Counters {
  readonly take: (key: string, w: RateWindow, tokens: number) => Step<Taken>
  /** False while no failed-credential counter can be alive (the memory store knows it): none need be read. */
  readonly failedMayLive: () => boolean
  /** The breaker in front of a shared store; none for the memory store, which cannot fail. */
  readonly guard: StoreGuard | undefined
}

/** The counters of the memory store, at the time `now` tells: what Effect's limiter answers for them. */
export const memoryCounters = (store: MemoryCounters, now: () => number): Counters => ({
  take: (key, w, tokens) => {
    const f = figuresOf(w)
    if (tokens > w.limit)
      return { _tag: "Exceeded", limit: w.limit, retryAfter: secondsUntilMillis(f.millis) }
    const [count, ttl] = store.step(key, tokens, f.refillRateMillis, w.limit, now())
    const remaining = w.limit - count
    return remaining < 0
      ? { _tag: "Exceeded", limit: w.limit, retryAfter: secondsUntilMillis(ttl) }
      : { _tag: "Taken", limit: w.limit, remaining, reset: secondsUntilMillis(ttl) }
  },
  failedMayLive: () => now() < store.failedLiveUntil(),
  guard: undefined
})

/** What Effect's limiter answered, as a take. */
const takenOf = (
  w: RateWindow,
  result: Result.Result<RateLimiter.ConsumeResult, RateLimiter.RateLimiterError>
): Taken => {
  if (Result.isSuccess(result)) {
    const { remaining, resetAfter } = result.success
    return { _tag: "Taken", limit: w.limit, remaining, reset: secondsUntil(resetAfter) }
  }
  const reason = result.failure.reason
  return reason._tag === "RateLimitStoreError"
    ? { _tag: "StoreFailed", message: reason.message }
    : { _tag: "Exceeded", limit: w.limit, retryAfter: secondsUntil(reason.retryAfter) }
}

/**
 * The counters of the store behind the RateLimiter in context, through a
 * breaker whose probe runs in the scope: each call bounded by `timeout`.
 */
export const sharedCounters = Effect.fnUntraced(function* (
  timeout: Duration.Duration,
  policies: StoreFailurePolicies
) {
  const limiter = yield* RateLimiter.RateLimiter
  const consume = (key: string, window: Duration.Input, limit: number, tokens: number) =>
    limiter.consume({ algorithm: "fixed-window", onExceeded: "fail", key, limit, window, tokens })
  // A read of a counter of its own: what every draw runs, counting nothing.
  const guard = yield* makeStoreGuard(consume("store-probe", "1 second", 1, 0), timeout, policies)
  const counters: Counters = {
    take: (key, w, tokens) =>
      Effect.map(Effect.result(guard.call(consume(key, w.window, w.limit, tokens))), (r) => takenOf(w, r)),
    failedMayLive: () => true,
    guard
  }
  return counters
})
