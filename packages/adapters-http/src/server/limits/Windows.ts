/**
 * A rate window's figures and the headers that report it
 * (draft-ietf-httpapi-ratelimit-headers, the separate-field form that most
 * clients parse): `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (delta seconds) for the window closest to exhaustion,
 * `RateLimit-Policy` listing every window (`120;w=60, 20000;w=86400`), and
 * `Retry-After` (seconds) on a refusal.
 */
import type { RateWindow } from "@ratings/domain/access/RequestLimits"
import { Duration } from "effect"

export const RateLimitHeaders = {
  limit: "ratelimit-limit",
  remaining: "ratelimit-remaining",
  reset: "ratelimit-reset",
  policy: "ratelimit-policy",
  retryAfter: "retry-after"
} as const

/** Headers an answer carries for its limits. */
export type LimitHeaders = Readonly<Record<string, string>>

export const NoHeaders: LimitHeaders = {}

export const windowSeconds = (window: Duration.Input): number =>
  Math.max(1, Math.round(Duration.toMillis(Duration.fromInputUnsafe(window)) / 1000))

/**
 * A window's figures as Effect's limiter works them out on each draw (its
 * length, at least 1 ms, and the refill rate: length / limit), and its
 * counter's key suffix; worked out once per window.
 */
export interface WindowFigures {
  readonly millis: number
  readonly refillRateMillis: number
  readonly suffix: string
}

const windowFigures = new WeakMap<RateWindow, WindowFigures>()

export const figuresOf = (w: RateWindow): WindowFigures => {
  const known = windowFigures.get(w)
  if (known !== undefined) return known
  const window = Duration.max(Duration.fromInputUnsafe(w.window), Duration.millis(1))
  const figures = {
    millis: Duration.toMillis(window),
    refillRateMillis: Duration.toMillis(Duration.divideUnsafe(window, w.limit)),
    suffix: `:${windowSeconds(w.window)}s`
  }
  windowFigures.set(w, figures)
  return figures
}

/** `RateLimit-Policy`: every window of the caller's kind, as `limit;w=seconds`. */
export const policyHeader = (windows: ReadonlyArray<RateWindow>): string =>
  windows.map((w) => `${w.limit};w=${windowSeconds(w.window)}`).join(", ")

/** Whole seconds, rounded up, never 0 (a client told 0 would retry at once). */
export const secondsUntil = (duration: Duration.Duration): number =>
  secondsUntilMillis(Duration.toMillis(duration))

export const secondsUntilMillis = (millis: number): number => Math.max(1, Math.ceil(millis / 1000))

/** One window after a draw: its limit, what is left of it, and the seconds until it resets. */
export interface WindowState {
  readonly limit: number
  readonly remaining: number
  readonly reset: number
}

/** The window the single-window headers report: the one closest to exhaustion. */
export const closestToExhaustion = (states: ReadonlyArray<WindowState>): WindowState | undefined =>
  states.reduce<WindowState | undefined>(
    (worst, s) =>
      worst === undefined ||
      s.remaining < worst.remaining ||
      (s.remaining === worst.remaining && s.reset > worst.reset)
        ? s
        : worst,
    undefined
  )

export const headersOf = (policy: string, state: WindowState, retryAfter?: number): LimitHeaders => {
  const headers: Record<string, string> = {
    [RateLimitHeaders.limit]: String(state.limit),
    [RateLimitHeaders.remaining]: String(Math.max(0, Math.floor(state.remaining))),
    [RateLimitHeaders.reset]: String(state.reset),
    [RateLimitHeaders.policy]: policy
  }
  if (retryAfter !== undefined) headers[RateLimitHeaders.retryAfter] = String(retryAfter)
  return headers
}
