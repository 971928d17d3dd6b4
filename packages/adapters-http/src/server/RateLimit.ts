/**
 * Request rate limits: the windows of each kind of caller are the domain's
 * access policy (domain access/RequestLimits.ts: spec part 8 "request rate",
 * api-facts for anonymous callers), which the configuration may replace per
 * kind; admins' responses carry the same headers as anyone's.
 *
 * Counters live in Effect's RateLimiter ("fixed-window": each request adds
 * window/limit to the counter's lifetime, so a burst of the whole limit is
 * forgotten one window later): in memory (one process), or in Redis when a
 * URL is configured, so that every server process behind a load balancer
 * shares them. The memory store is Effect's with one change: expired
 * counters are swept once a minute (Effect's keeps every key it has seen, and
 * a public server sees an unbounded set of addresses).
 *
 * A keyed caller is counted by its API key id (a key is issued at one tier,
 * so its counter has one limit), an admin by subject, an anonymous caller by
 * the client address authentication established (AuthConfig.trustProxy
 * decides it; an IPv6 client is counted by its /64, the block one subscriber
 * usually holds).
 *
 * Headers (draft-ietf-httpapi-ratelimit-headers, the separate-field form that
 * most clients parse): every limited response carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` (delta seconds) for the window
 * closest to exhaustion, and `RateLimit-Policy` listing every window of the
 * caller (`120;w=60, 20000;w=86400`). A refused request is a 429 with
 * `Retry-After` (seconds) and `{"detail": {"error": "rate_limited", "retry_after": N}}`.
 *
 * Coverage requests (POST /contacts) have an allowance of their own per
 * client address (`checkContact`: 5 an hour by default), drawn besides the
 * caller's request rate, in the same store under `contact:<address>`; so do
 * the MCP sessions opened at /mcp (`checkMcpSession`: 60 an hour, under
 * `mcp:<address>`).
 *
 * When the shared store (Redis) fails or does not answer within its timeout
 * (250 ms by default), an outage begins: from then on no request waits on the
 * store; each limit decides by its own policy at once (`onStoreFailure`):
 * open, the request is served without limit headers; closed, it is answered
 * 503 `{"detail": "service unavailable"}` with `Retry-After` and
 * `Cache-Control: no-store` (the caller did nothing wrong: not a 429). By
 * default the request rate and MCP sessions fail open (the limiter must not
 * take the API down), coverage requests fail closed, and so may failed
 * credentials (closed: no credential is checked while the store cannot say
 * whether its address has used its allowance). The store is probed once a
 * second until it answers, which ends the outage. The outage is logged once
 * as it begins (a warning) and once as it ends, never per request, and is
 * read at /metrics (`storeStatus`). The memory store cannot fail: none of
 * this is on its path.
 */
import { createHash } from "node:crypto"
import {
  CoverageRequestAllowance,
  type RateLimitTable,
  type RateWindow,
  RequestRateLimits
} from "@ratings/domain/access/RequestLimits"
import { type Caller, type CallerKind, callerKind } from "@ratings/domain/model/Caller"
import { Context, Duration, Effect, Layer, Option, Result } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IpNetwork, NetAddress } from "effect/net"
import { RateLimiter } from "effect/persistence"
import { RateLimitedError } from "../api/Api.ts"
import { ServiceUnavailableError } from "../api/Errors.ts"
import { handoffOf } from "./front/Handoff.ts"
import {
  DefaultRedisKeyPrefix,
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  layerStoreRedis,
  makeStoreGuard,
  StoreDownRetryAfterSeconds,
  type StoreFailurePolicies,
  type StoreFailurePolicy,
  type StoreGuard,
  type StoreStatus
} from "./RateLimitStore.ts"

export {
  DefaultRedisKeyPrefix,
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  LimitKindLabels,
  LimitKinds,
  StoreDownRetryAfterSeconds,
  type StoreFailurePolicies,
  type StoreFailurePolicy,
  StoreProbeEvery,
  type StoreStatus
} from "./RateLimitStore.ts"

export type { RateLimitTable, RateWindow }

/** The windows of coverage requests (POST /contacts) per client address: the domain's allowance. */
export const ProductionContactLimits: ReadonlyArray<RateWindow> = [CoverageRequestAllowance]

/**
 * MCP sessions opened at /mcp (an `initialize` without a session): 60 an hour
 * per client address, whoever opens them, on a counter of their own (the tool
 * calls a session makes are counted as API requests of its caller). The
 * endpoint keeps a bounded number of sessions (adapters-mcp McpEndpoint.ts):
 * without this an address could push every other client's session out.
 */
export const ProductionMcpSessionLimits: ReadonlyArray<RateWindow> = [{ limit: 60, window: "1 hour" }]

export interface RateLimitConfig {
  /** A Redis URL (`redis://host:6379`): counters shared by every process using it. In memory otherwise. */
  readonly redisUrl?: string | undefined
  /** Prefix of the Redis keys, so that several deployments (or test runs) can share one Redis. */
  readonly redisKeyPrefix?: string | undefined
  /** Per caller kind, replaces the domain's windows of that kind (RequestRateLimits). */
  readonly limits?: Partial<RateLimitTable> | undefined
  /** The windows of coverage requests per client address; ProductionContactLimits when absent. */
  readonly contacts?: ReadonlyArray<RateWindow> | undefined
  /** The windows of MCP sessions opened per client address; ProductionMcpSessionLimits when absent. */
  readonly mcpSessions?: ReadonlyArray<RateWindow> | undefined
  /** How long a call to the shared store may take before it counts as failed; DefaultStoreTimeout when absent. */
  readonly storeTimeout?: Duration.Input | undefined
  /** Per kind of limit, what it does while the shared store cannot be reached; DefaultStoreFailurePolicies for the rest. */
  readonly onStoreFailure?: Partial<StoreFailurePolicies> | undefined
}

export const RateLimitHeaders = {
  limit: "ratelimit-limit",
  remaining: "ratelimit-remaining",
  reset: "ratelimit-reset",
  policy: "ratelimit-policy",
  retryAfter: "retry-after"
} as const

const SweepEvery = Duration.toMillis(Duration.minutes(1))

/**
 * A process-local store: Effect's memory store, whose fixed window is
 * re-implemented here (same arithmetic) so that expired counters can be
 * swept; the other algorithms, unused here, are Effect's.
 */
export const makeStoreMemory = Effect.gen(function* () {
  const effects = yield* Effect.provide(
    Effect.service(RateLimiter.RateLimiterStore),
    RateLimiter.layerStoreMemory
  )
  const counters = new Map<string, { count: number; expiresAt: number }>()
  /** No counter of failed credentials lives past this time (the latest lifetime one was given). */
  let failedLiveUntil = Number.NEGATIVE_INFINITY
  let sweptAt = Number.NEGATIVE_INFINITY
  const sweep = (now: number) => {
    if (now - sweptAt < SweepEvery) return
    sweptAt = now
    for (const [key, counter] of counters) if (counter.expiresAt <= now) counters.delete(key)
  }
  /** The fixed-window step at `now`: the count after it and the counter's time to live (Effect's arithmetic). */
  const fixedWindowAt: FixedWindowAt = (key, tokens, refillRateMillis, limit, now) => {
    sweep(now)
    let counter = counters.get(key)
    if (counter === undefined || counter.expiresAt <= now) {
      // A read (0 tokens) of a counter not held or expired: what a fresh one would say, without keeping it.
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
  const store = RateLimiter.RateLimiterStore.of({
    ...effects,
    fixedWindow: (options) =>
      Effect.clockWith((clock) =>
        Effect.sync(() =>
          fixedWindowAt(
            options.key,
            options.tokens,
            Duration.toMillis(options.refillRate),
            options.limit,
            clock.currentTimeMillisUnsafe()
          )
        )
      )
  })
  memoryStores.set(store, { step: fixedWindowAt, failedLiveUntil: () => failedLiveUntil })
  /** How many counters are held, expired ones not yet swept included. */
  const size = () => counters.size
  return { store, size }
})

/** A counter with nothing counted: the count 0, and a lifetime already over. */
const NothingCounted = [0, 0] as const

/** The memory store's fixed-window step, for draws made outside an effect (the lane's, `drawForLaneNow`). */
type FixedWindowAt = (
  key: string,
  tokens: number,
  refillRateMillis: number,
  limit: number | undefined,
  now: number
) => readonly [count: number, ttlMillis: number]

/** A memory store's counters, read and drawn at once. */
interface MemorySteps {
  readonly step: FixedWindowAt
  /** No counter of failed credentials (`authfail:`) lives past this time: before it none need be read. */
  readonly failedLiveUntil: () => number
}

/** The memory stores made here, each with its step: the same counters, read and drawn at once. */
const memoryStores = new WeakMap<RateLimiter.RateLimiterStore["Service"], MemorySteps>()

/** The subject prefix of an address's failed-credential counters. */
const FailedPrefix = "authfail:"

export const layerStoreMemory = Layer.effect(
  RateLimiter.RateLimiterStore,
  Effect.map(makeStoreMemory, ({ store }) => store)
)

const parseAddressKey = (address: string): string => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const ip = NetAddress.ipFromString(bare)
  if (Result.isFailure(ip)) return address
  const canonical = NetAddress.toCanonical(ip.success)
  if (NetAddress.isIpv4Address(canonical)) return NetAddress.formatIp(canonical)
  return Result.match(IpNetwork.fromAddress(canonical, 64), {
    onFailure: () => NetAddress.formatIp(canonical),
    onSuccess: IpNetwork.format
  })
}

/** The most strings each memo below holds (an address repeats on every request of a client). */
const MaxMemoStrings = 10_000

/**
 * Strings worked out once per input and then handed out as the same string,
 * at most `MaxMemoStrings` (the oldest forgotten first): a counter's key built
 * anew on every request is a new string whose hash the store's map must work
 * out again; the same string keeps its hash.
 */
const memoString = (build: (input: string) => string) => {
  const known = new Map<string, string>()
  return (input: string): string => {
    const hit = known.get(input)
    if (hit !== undefined) return hit
    const made = build(input)
    if (known.size >= MaxMemoStrings) known.delete(known.keys().next().value!)
    known.set(input, made)
    return made
  }
}

/** The address an anonymous counter is keyed by: an IPv4 address, or the /64 of an IPv6 one. */
export const addressKey = memoString(parseAddressKey)

const keySubject = memoString((keyId) => `key:${keyId}`)
const addressSubject = memoString((address) => `ip:${address}`)

/** Whose counter a request draws on. An admin's subject (often an e-mail) is hashed, not stored in Redis. */
export const subjectOf = (caller: Caller): string => {
  switch (caller._tag) {
    case "ApiKey":
      return keySubject(caller.key_id)
    case "Admin":
      return `admin:${createHash("sha256").update(caller.subject).digest("base64url").slice(0, 22)}`
    case "Anonymous":
      return addressSubject(addressKey(caller.ip))
  }
}

/** The counter of `subject` in window `w`: `<subject>:<seconds>s`, the same string for the same pair. */
const counterKey = (subject: string, w: RateWindow): string => {
  const suffix = figuresOf(w).suffix
  let bySubject = counterKeys.get(suffix)
  if (bySubject === undefined) {
    bySubject = memoString((s) => `${s}${suffix}`)
    counterKeys.set(suffix, bySubject)
  }
  return bySubject(subject)
}

/** Per window suffix, the counter keys worked out lately. */
const counterKeys = new Map<string, (subject: string) => string>()

const windowSeconds = (window: Duration.Input): number =>
  Math.max(1, Math.round(Duration.toMillis(Duration.fromInputUnsafe(window)) / 1000))

/**
 * A window's figures as Effect's limiter works them out on each draw (its
 * length, at least 1 ms, and the refill rate: length / limit), and its
 * counter's key suffix; worked out once per window.
 */
interface WindowFigures {
  readonly millis: number
  readonly refillRateMillis: number
  readonly suffix: string
}

const windowFigures = new WeakMap<RateWindow, WindowFigures>()

const figuresOf = (w: RateWindow): WindowFigures => {
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

const secondsUntilMillis = (millis: number): number => Math.max(1, Math.ceil(millis / 1000))

interface WindowState {
  readonly limit: number
  readonly remaining: number
  readonly reset: number
}

/** The window the single-window headers report: the one closest to exhaustion. */
const closestToExhaustion = (states: ReadonlyArray<WindowState>): WindowState | undefined =>
  states.reduce<WindowState | undefined>(
    (worst, s) =>
      worst === undefined ||
      s.remaining < worst.remaining ||
      (s.remaining === worst.remaining && s.reset > worst.reset)
        ? s
        : worst,
    undefined
  )

const headersOf = (policy: string, state: WindowState, retryAfter?: number): Record<string, string> => {
  const headers: Record<string, string> = {
    [RateLimitHeaders.limit]: String(state.limit),
    [RateLimitHeaders.remaining]: String(Math.max(0, Math.floor(state.remaining))),
    [RateLimitHeaders.reset]: String(state.reset),
    [RateLimitHeaders.policy]: policy
  }
  if (retryAfter !== undefined) headers[RateLimitHeaders.retryAfter] = String(retryAfter)
  return headers
}

/** The headers go on whatever response the request ends with: success, error, 304 or 429. */
const onResponse = (headers: Record<string, string>) =>
  HttpEffect.appendPreResponseHandler((_, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, headers))
  )

/** What a failed draw says: the store failed (served without limit), or a window refused the request. */
type Refusal =
  | { readonly _tag: "StoreFailed"; readonly message: string }
  | { readonly _tag: "Refused"; readonly retryAfter: number; readonly limit: number }

/** What the draws of one limiter share: its store, its windows per caller kind and their policy headers. */
interface Limits {
  readonly limiter: RateLimiter.RateLimiter
  readonly table: RateLimitTable
  readonly policies: { readonly [K in CallerKind]: string }
  /**
   * Whether the store may be slow or silent (Redis): then the windows of one
   * check are read at once. The memory store answers at once: no fiber per
   * window (a cached read's whole cost is of that order).
   */
  readonly remote: boolean
  /** The memory store's step and clock, when the store is the memory store: draws then need no effect. */
  readonly now: (MemorySteps & { readonly millis: () => number }) | undefined
  /** The breaker in front of a remote store (each call bounded, none during an outage); none for the memory store. */
  readonly guard: StoreGuard | undefined
  /** What each kind of limit does while the store cannot be reached. */
  readonly onStoreFailure: StoreFailurePolicies
}

/** One window's counter: `tokens` 0 reads it without drawing. */
const consume = (limits: Limits, subject: string, w: RateWindow, tokens: number) => {
  const call = limits.limiter.consume({
    algorithm: "fixed-window",
    onExceeded: "fail",
    key: counterKey(subject, w),
    limit: w.limit,
    window: w.window,
    tokens
  })
  return limits.guard === undefined ? call : limits.guard.call(call)
}

/** A limit of `kind` that could not reach its store: its policy, noted for /metrics. */
const withoutStore = (limits: Limits, kind: LimitKind): StoreFailurePolicy => {
  const policy = limits.onStoreFailure[kind]
  limits.guard?.decided(kind, policy)
  return policy
}

/** The 503 of a limit that fails closed: the API's service-unavailable answer, never stored, retried later. */
const storeUnavailable = onResponse({
  [RateLimitHeaders.retryAfter]: String(StoreDownRetryAfterSeconds),
  "cache-control": "no-store"
}).pipe(Effect.andThen(Effect.fail(ServiceUnavailableError.instance)))

/**
 * Draws one request from each window in turn; the states drawn, or why it
 * stopped. At once on the memory store (`drawNow`), through the store's
 * effect on any other.
 */
const draw = (
  limits: Limits,
  subject: string,
  windows: ReadonlyArray<RateWindow>
): Effect.Effect<DrawnAhead> => {
  const now = limits.now
  return now === undefined
    ? drawThroughStore(limits, subject, windows)
    : Effect.sync(() => drawNow(now, subject, windows))
}

/** `draw` through the store's effect (bounded by the guard's timeout on a remote store). */
const drawThroughStore = Effect.fnUntraced(function* (
  limits: Limits,
  subject: string,
  windows: ReadonlyArray<RateWindow>
) {
  const states: Array<WindowState> = []
  for (const w of windows) {
    const consumed = yield* Effect.result(consume(limits, subject, w, 1))
    if (Result.isSuccess(consumed)) {
      const { remaining, resetAfter } = consumed.success
      states.push({ limit: w.limit, remaining, reset: secondsUntil(resetAfter) })
      continue
    }
    const reason = consumed.failure.reason
    const refusal: Refusal =
      reason._tag === "RateLimitStoreError"
        ? { _tag: "StoreFailed", message: reason.message }
        : { _tag: "Refused", retryAfter: secondsUntil(reason.retryAfter), limit: w.limit }
    return { states, refusal }
  }
  return { states, refusal: undefined }
})

const refuseWith = (policy: string, limit: number, retryAfter: number) =>
  onResponse(headersOf(policy, { limit, remaining: 0, reset: retryAfter }, retryAfter)).pipe(
    Effect.andThen(
      Effect.fail(new RateLimitedError({ detail: { error: "rate_limited", retry_after: retryAfter } }))
    )
  )

const refuse = (limits: Limits, kind: CallerKind, limit: number, retryAfter: number) =>
  refuseWith(limits.policies[kind], limit, retryAfter)

/**
 * Ends a draw of a limit of `kind` on windows whose policy header is
 * `policy`: their headers on the response, a 429 when one refused; when the
 * store could not be reached, the kind's policy: served without headers
 * (open), or `closed`.
 */
const concludeWith = <E>(
  limits: Limits,
  kind: LimitKind,
  closed: Effect.Effect<never, E, HttpServerRequest.HttpServerRequest>,
  policy: string,
  states: ReadonlyArray<WindowState>,
  refusal: Refusal | undefined
): Effect.Effect<void, RateLimitedError | E, HttpServerRequest.HttpServerRequest> => {
  if (refusal?._tag === "StoreFailed") return withoutStore(limits, kind) === "open" ? Effect.void : closed
  if (refusal?._tag === "Refused") return refuseWith(policy, refusal.limit, refusal.retryAfter)
  const reported = closestToExhaustion(states)
  return reported === undefined ? Effect.void : onResponse(headersOf(policy, reported))
}

/** Ends a draw of the caller's request rate: the headers of `kind` on the response, a 429 when a window refused. */
const conclude = (
  limits: Limits,
  kind: CallerKind,
  states: ReadonlyArray<WindowState>,
  refusal: Refusal | undefined
) => concludeWith(limits, "requests", storeUnavailable, limits.policies[kind], states, refusal)

/** A draw made for a request before its handler ran (HitLane.ts), which `check` then concludes. */
export interface DrawnAhead {
  readonly states: ReadonlyArray<WindowState>
  readonly refusal: Refusal | undefined
}

const check = (limits: Limits) =>
  Effect.fnUntraced(function* (caller: Caller) {
    const kind = callerKind(caller)
    const request = yield* HttpServerRequest.HttpServerRequest
    const ahead = handoffOf(request)?.drawn
    const { states, refusal } = ahead ?? (yield* draw(limits, subjectOf(caller), limits.table[kind]))
    yield* conclude(limits, kind, states, refusal)
  })

/** One window read: what is left and when it resets; undefined when the store failed. */
type WindowRead = { readonly remaining: number; readonly resetSeconds: number } | undefined

/**
 * Windows read at once from the memory store (a draw of 0: counts nothing);
 * `subject` undefined: a counter known not to be held.
 */
const readNow = (
  now: NonNullable<Limits["now"]>,
  subject: string | undefined,
  windows: ReadonlyArray<RateWindow>
): Array<WindowRead> =>
  windows.map((w) => {
    const read = consumeNow(now, subject, w, 0)
    return "remaining" in read
      ? { remaining: read.remaining, resetSeconds: read.reset }
      : { remaining: 0, resetSeconds: read.retryAfter }
  })

/**
 * The address's failed-credential windows read at once from the memory store.
 * While no failed-credential counter can be alive (most requests), none is
 * looked up: each reads as a counter not held.
 */
const readFailedNow = (now: NonNullable<Limits["now"]>, limits: Limits, address: string): Array<WindowRead> =>
  readNow(
    now,
    now.millis() < now.failedLiveUntil() ? failedSubject(address) : undefined,
    limits.table.anonymous
  )

/** The windows of `subject`, read (a draw of 0: counts nothing). */
const readWindows = (
  limits: Limits,
  subject: string,
  windows: ReadonlyArray<RateWindow>
): Effect.Effect<ReadonlyArray<WindowRead>> =>
  Effect.suspend(() => {
    const now = limits.now
    if (now !== undefined) return Effect.succeed(readNow(now, subject, windows))
    return Effect.forEach(
      windows,
      (w) =>
        Effect.map(
          Effect.result(consume(limits, subject, w, 0)),
          (r): WindowRead =>
            Result.isSuccess(r)
              ? { remaining: r.success.remaining, resetSeconds: secondsUntil(r.success.resetAfter) }
              : undefined
        ),
      { concurrency: limits.remote ? "unbounded" : 1 }
    )
  })

/** The address's failed-credential windows, read (a draw of 0: counts nothing). */
const readFailedCredentials = (limits: Limits, address: string): Effect.Effect<ReadonlyArray<WindowRead>> =>
  limits.now !== undefined
    ? Effect.sync(() => readFailedNow(limits.now!, limits, address))
    : readWindows(limits, failedSubject(address), limits.table.anonymous)

/** Whether failed-credential windows read are used up (a window the store did not answer is not). */
const exhausted = (read: ReadonlyArray<WindowRead>): boolean =>
  read.some((r) => r !== undefined && r.remaining < 1)

/** Whether the store failed to answer a window read. */
const unread = (read: ReadonlyArray<WindowRead>): boolean => read.some((r) => r === undefined)

/**
 * The lane of cache hits' draw (HitLane.ts): for a caller whose credential
 * came from `credentialFrom` (undefined for an anonymous caller), nothing
 * when that address's failed credentials are exhausted, or cannot be read
 * and fail closed (the handlers will refuse it; nothing is drawn), else one
 * request drawn from the caller's windows: the headers to answer with when
 * it was admitted (none when the store failed and the request rate fails
 * open), or the draw to hand over with the request (a refusal, a store
 * failure failing closed) for `check` to conclude as usual.
 */
const drawForLane = (limits: Limits) =>
  Effect.fnUntraced(function* (caller: Caller, credentialFrom: string | undefined) {
    if (credentialFrom !== undefined) {
      const read = yield* readFailedCredentials(limits, credentialFrom)
      if (exhausted(read)) return undefined
      if (unread(read)) {
        // Closed: handed over without a draw; the handlers' `admitCredential` answers (and counts) it.
        if (limits.onStoreFailure.failedCredentials === "closed") return undefined
        withoutStore(limits, "failedCredentials")
      }
    }
    const kind = callerKind(caller)
    const drawn: DrawnAhead = yield* draw(limits, subjectOf(caller), limits.table[kind])
    if (drawn.refusal?._tag === "StoreFailed" && limits.onStoreFailure.requests === "open") {
      withoutStore(limits, "requests")
      return { _tag: "Admitted", headers: {} } as const
    }
    if (drawn.refusal !== undefined) return { _tag: "HandOver", drawn } as const
    const reported = closestToExhaustion(drawn.states)
    const headers = reported === undefined ? {} : headersOf(limits.policies[kind], reported)
    return { _tag: "Admitted", headers } as const
  })

/**
 * One window's counter drawn at once from the memory store: what Effect's
 * limiter's `consume` (fixed window, failing when exceeded) answers for the
 * same counter, without an effect (the lane's draw: a cached
 * read's whole cost is of the order of a fiber's).
 */
const consumeNow = (
  now: NonNullable<Limits["now"]>,
  subject: string | undefined,
  w: RateWindow,
  tokens: number
): WindowState | { readonly limit: number; readonly retryAfter: number } => {
  const f = figuresOf(w)
  if (tokens > w.limit) return { limit: w.limit, retryAfter: secondsUntilMillis(f.millis) }
  // `subject` undefined: a read of a counter known not to be held, answered as the store answers it.
  const [count, ttl] =
    subject === undefined
      ? NothingCounted
      : now.step(counterKey(subject, w), tokens, f.refillRateMillis, w.limit, now.millis())
  const remaining = w.limit - count
  if (remaining < 0) return { limit: w.limit, retryAfter: secondsUntilMillis(ttl) }
  return { limit: w.limit, remaining, reset: secondsUntilMillis(ttl) }
}

/** `draw` at once, on the memory store. */
const drawNow = (
  now: NonNullable<Limits["now"]>,
  subject: string,
  windows: ReadonlyArray<RateWindow>
): DrawnAhead => {
  const states: Array<WindowState> = []
  for (const w of windows) {
    const drawn = consumeNow(now, subject, w, 1)
    if ("retryAfter" in drawn)
      return { states, refusal: { _tag: "Refused", retryAfter: drawn.retryAfter, limit: drawn.limit } }
    states.push(drawn)
  }
  return { states, refusal: undefined }
}

/**
 * `drawForLane` at once when the store is the memory store (the same
 * counters, arithmetic and answers); `undefined` when it is not, and the
 * effect must run.
 */
const drawForLaneNow =
  (limits: Limits) =>
  (caller: Caller, credentialFrom: string | undefined): { readonly draw: LaneDraw } | undefined => {
    const now = limits.now
    if (now === undefined) return undefined
    if (credentialFrom !== undefined && exhausted(readFailedNow(now, limits, credentialFrom)))
      return { draw: undefined }
    const kind = callerKind(caller)
    const drawn = drawNow(now, subjectOf(caller), limits.table[kind])
    if (drawn.refusal !== undefined) return { draw: { _tag: "HandOver", drawn } }
    const reported = closestToExhaustion(drawn.states)
    return {
      draw: {
        _tag: "Admitted",
        headers: reported === undefined ? {} : headersOf(limits.policies[kind], reported)
      }
    }
  }

/** What the lane's draw concluded (see `drawForLane`). */
export type LaneDraw =
  | undefined
  | { readonly _tag: "Admitted"; readonly headers: Readonly<Record<string, string>> }
  | { readonly _tag: "HandOver"; readonly drawn: DrawnAhead }

const failedSubjectOf = memoString((key) => `${FailedPrefix}${key}`)
const failedSubject = (address: string) => failedSubjectOf(addressKey(address))

/**
 * One request drawn from an allowance the address has apart from its request
 * rate (`<prefix>:<address>`): a 429 once it is used, and the response's
 * RateLimit headers are its windows'; `closed`, when the store cannot be
 * reached and the kind fails closed. Coverage requests (`contact:`) and MCP
 * sessions opened at /mcp (`mcp:`).
 */
const checkAllowance = <E>(
  limits: Limits,
  kind: LimitKind,
  closed: Effect.Effect<never, E, HttpServerRequest.HttpServerRequest>,
  prefix: string,
  windows: ReadonlyArray<RateWindow>
) => {
  const policy = policyHeader(windows)
  return (address: string) =>
    Effect.flatMap(draw(limits, `${prefix}${addressKey(address)}`, windows), ({ states, refusal }) =>
      concludeWith(limits, kind, closed, policy, states, refusal)
    )
}

/**
 * The allowance of `checkAllowance` read for `address`, nothing drawn: a 429
 * (with the allowance's headers) when it is used up, so that a request can be
 * refused before its work is done and drawn only once that work is known to
 * count. A store that cannot be reached: `closed` when the kind fails closed;
 * otherwise admitted, and the draw decides (and is the one noted for /metrics).
 */
const admitAllowance = <E>(
  limits: Limits,
  kind: LimitKind,
  closed: Effect.Effect<never, E, HttpServerRequest.HttpServerRequest>,
  prefix: string,
  windows: ReadonlyArray<RateWindow>
) => {
  const policy = policyHeader(windows)
  return Effect.fnUntraced(function* (address: string) {
    const read = yield* readWindows(limits, `${prefix}${addressKey(address)}`, windows)
    for (const [i, r] of read.entries())
      if (r !== undefined && r.remaining < 1)
        return yield* refuseWith(policy, windows[i]!.limit, r.resetSeconds)
    if (unread(read) && limits.onStoreFailure[kind] === "closed") {
      withoutStore(limits, kind)
      return yield* closed
    }
  })
}

const admitCredential = (limits: Limits) =>
  Effect.fnUntraced(function* (address: string) {
    const anonymous = limits.table.anonymous
    const read = yield* readFailedCredentials(limits, address)
    for (const [i, r] of read.entries()) {
      if (r === undefined || r.remaining >= 1) continue
      return yield* refuse(limits, "anonymous", anonymous[i]!.limit, r.resetSeconds)
    }
    if (unread(read) && withoutStore(limits, "failedCredentials") === "closed") return yield* storeUnavailable
  })

const countFailedCredential = (limits: Limits) =>
  Effect.fnUntraced(function* (address: string) {
    const failed = yield* draw(limits, failedSubject(address), limits.table.anonymous)
    const anonymous = yield* draw(
      limits,
      subjectOf({ _tag: "Anonymous", ip: address }),
      limits.table.anonymous
    )
    const policy = limits.policies.anonymous
    if (failed.refusal?._tag === "StoreFailed" || anonymous.refusal?._tag === "StoreFailed")
      return yield* concludeWith(limits, "failedCredentials", storeUnavailable, policy, [], {
        _tag: "StoreFailed",
        message: "the failed credential could not be counted"
      })
    const refused = failed.refusal?._tag === "Refused" ? failed.refusal : undefined
    yield* concludeWith(
      limits,
      "failedCredentials",
      storeUnavailable,
      policy,
      anonymous.states,
      anonymous.refusal ?? refused
    )
  })

/**
 * Draws one request from the caller's counters, after authentication (the
 * caller picks the counter and the windows). A window that is exhausted
 * refuses the request without drawing on the windows after it.
 *
 * A request whose credential fails is not a caller: authentication asks
 * `admitCredential` before it looks a key up or verifies a token, and counts
 * the failure with `countFailedCredential` (ADR 0006 "Failed credentials").
 */
export class RequestRateLimiter extends Context.Service<
  RequestRateLimiter,
  {
    /** The caller's request rate: 429 once a window is used; 503 while the store is unreachable and it fails closed. */
    readonly check: (
      caller: Caller
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /**
     * Before a credential sent from `address` is checked: 429 when the
     * address's failed credentials have used the anonymous allowance (503
     * when they cannot be read and failed credentials fail closed). Counts
     * nothing, so a valid key or token from the address costs it nothing.
     */
    readonly admitCredential: (
      address: string
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /**
     * A credential sent from `address` failed: counted like an anonymous
     * request of the address (its windows and headers, 429 once exhausted),
     * and on the address's failed-credential counters that `admitCredential` reads.
     */
    readonly countFailedCredential: (
      address: string
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /**
     * A coverage request (POST /contacts) from `address`: drawn from the
     * address's coverage-request windows, 429 once they are used. The
     * response then carries those windows' RateLimit headers.
     */
    readonly checkContact: (
      address: string
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /**
     * An MCP session opened at /mcp from `address`: drawn from the address's
     * MCP-session windows, 429 once they are used, with their headers; 503
     * while the store is unreachable and MCP sessions fail closed.
     */
    readonly checkMcpSession: (
      address: string
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /**
     * Before an MCP session is opened for `address`: 429 when its MCP-session
     * windows are used up, with their headers; 503 while the store is
     * unreachable and MCP sessions fail closed. Counts nothing: the session is
     * drawn (`checkMcpSession`) once it is opened.
     */
    readonly admitMcpSession: (
      address: string
    ) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>
    /** The lane of cache hits' draw, outside any request's handlers (see `drawForLane`). */
    readonly drawForLane: (caller: Caller, credentialFrom: string | undefined) => Effect.Effect<LaneDraw>
    /** The same draw made at once when the store is the memory store; undefined otherwise (see `drawForLaneNow`). */
    readonly drawForLaneNow: (
      caller: Caller,
      credentialFrom: string | undefined
    ) => { readonly draw: LaneDraw } | undefined
    /** The shared store's state (read at /metrics); undefined for the memory store, which cannot fail. */
    readonly storeStatus: () => StoreStatus | undefined
  }
>()("@ratings/adapters-http/RequestRateLimiter") {
  /**
   * The limiter over the provided store. `localStore`: the store answers at
   * once, in process (the memory store): draws then run as plain calls; any
   * other store is called through a breaker (each call bounded by the
   * configured timeout, none during an outage), whose probe runs in the
   * limiter's scope.
   */
  static readonly make = (config: RateLimitConfig, localStore = false) =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.RateLimiter
      const store = yield* Effect.serviceOption(RateLimiter.RateLimiterStore)
      const steps = localStore && Option.isSome(store) ? memoryStores.get(store.value) : undefined
      const clock = yield* Effect.clockWith(Effect.succeed)
      const table: RateLimitTable = { ...RequestRateLimits, ...config.limits }
      const policies = Object.fromEntries(
        Object.entries(table).map(([kind, windows]) => [kind, policyHeader(windows)])
      ) as { readonly [K in CallerKind]: string }
      const onStoreFailure: StoreFailurePolicies = {
        ...DefaultStoreFailurePolicies,
        ...config.onStoreFailure
      }
      const guard = localStore
        ? undefined
        : yield* makeStoreGuard(
            // A read of a counter of its own: what every draw runs, counting nothing.
            limiter.consume({
              algorithm: "fixed-window",
              onExceeded: "fail",
              key: "store-probe",
              limit: 1,
              window: "1 second",
              tokens: 0
            }),
            Duration.fromInputUnsafe(config.storeTimeout ?? DefaultStoreTimeout),
            onStoreFailure
          )
      const limits: Limits = {
        limiter,
        table,
        policies,
        remote: !localStore,
        now: steps === undefined ? undefined : { ...steps, millis: () => clock.currentTimeMillisUnsafe() },
        guard,
        onStoreFailure
      }
      return RequestRateLimiter.of({
        check: check(limits),
        admitCredential: admitCredential(limits),
        countFailedCredential: countFailedCredential(limits),
        checkContact: checkAllowance(
          limits,
          "contacts",
          storeUnavailable,
          "contact:",
          config.contacts ?? ProductionContactLimits
        ),
        checkMcpSession: checkAllowance(
          limits,
          "mcpSessions",
          storeUnavailable,
          "mcp:",
          config.mcpSessions ?? ProductionMcpSessionLimits
        ),
        admitMcpSession: admitAllowance(
          limits,
          "mcpSessions",
          storeUnavailable,
          "mcp:",
          config.mcpSessions ?? ProductionMcpSessionLimits
        ),
        drawForLane: drawForLane(limits),
        drawForLaneNow: drawForLaneNow(limits),
        storeStatus: () => guard?.status()
      })
    })

  /**
   * The limiter over its store: Redis when `redisUrl` is set (the layer fails
   * to build when Redis cannot be reached, so a misconfigured deployment does
   * not start), memory otherwise.
   */
  static readonly layer = (config: RateLimitConfig = {}) =>
    Layer.effect(RequestRateLimiter, RequestRateLimiter.make(config, config.redisUrl === undefined)).pipe(
      Layer.provide(RateLimiter.layer),
      Layer.provide(
        config.redisUrl === undefined
          ? layerStoreMemory
          : layerStoreRedis(config.redisUrl, config.redisKeyPrefix ?? DefaultRedisKeyPrefix)
      )
    )
}
